"""torch.load's keywords reported by pickle's Unpickler (a torch older than the keyword): read as torch.load's own
unexpected keyword and dated by the API history (families/api-drift.md torch-load-unpickler-keyword,
kb/diagnose/drift.py). Learned from drift-71's first score (four of its five silences): that set's later scores
include this reading."""

from __future__ import annotations

import pytest

from kb import diagnose_text

TRACEBACK = """Traceback (most recent call last):
  File "run.py", line 9, in <module>
    state = torch.load(path, map_location='cpu', weights_only=True)
  File "/usr/lib/python3.8/site-packages/torch/serialization.py", line 592, in load
    return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)
TypeError: 'weights_only' is an invalid keyword argument for Unpickler()
"""


@pytest.mark.parametrize("text", [
    TRACEBACK,
    "TypeError: 'weights_only' is an invalid keyword argument for Unpickler()\n",
    "[BUG] loading the checkpoint fails: 'weights_only' is an invalid keyword argument for Unpickler()\n",
], ids=["traceback", "error-line", "title"])
def test_the_unpickler_form_is_torch_loads_keyword(text: str) -> None:
    out = diagnose_text(text).text
    assert out.startswith("family api-drift"), out
    assert "`torch.load` accepts `weights_only`" in out and "torch 1.13.0" in out, out


def test_another_unpickler_complaint_is_not_read_as_a_keyword() -> None:
    # pickle's own errors without the keyword form are not API drift
    out = diagnose_text("_pickle.UnpicklingError: invalid load key, '<'.\n").text
    assert "`torch.load` accepts" not in out
