"""Issue #25, a form no parse read before (kb/diagnose/drift.py, recognise):

huggingface_hub's lazy ``__getattr__`` words a missing top-level name as "AttributeError: No huggingface_hub attribute
list_files_info" (no quotes, no "module", no "has"): the same miss as Python's "module 'huggingface_hub' has no
attribute 'list_files_info'" (drift-52-huggingface-China-4, a Colab notebook; list_files_info gone in
huggingface_hub 0.23.0).
"""

from __future__ import annotations

import pytest

from drift_support import DEV, drift_of, top
from kb.diagnose.drift import recognise


def test_lazy_package_wording_is_a_module_attribute() -> None:
    form, fields = recognise("AttributeError", "No huggingface_hub attribute list_files_info")
    assert form == "module-attribute"
    assert fields == {"name": "list_files_info", "module": "huggingface_hub"}


@pytest.mark.parametrize("message", [
    "No such file or directory",            # OSError's words
    "No attribute named foo here",          # prose, not the package's four words
    "No 'x' attribute y",                   # quoted: not this form
])
def test_other_no_lines_are_not_read(message: str) -> None:
    assert recognise("AttributeError", message) is None


def test_another_error_type_is_not_read() -> None:
    assert recognise("KeyError", "No huggingface_hub attribute list_files_info") is None


def test_the_real_report_is_dated() -> None:
    drift = drift_of((DEV / "drift-52-huggingface-China-4.txt").read_text())
    assert drift is not None
    assert drift["library"] == "huggingface_hub"
    assert drift["removed_in"] == "0.23.0"


# (2) a notebook traceback cut inside the call that raised (drift-14-llm-book-56): the cell down to its arrow line
# "training_args = TrainingArguments(" and the keywords under it, then the bare "TypeError" header and nothing else;
# the report's title names the keyword ("5.2.8 章 evaluation_strategy 廃止に伴うコードの変更"), gone in transformers 4.51.0.

def test_cut_call_with_the_title_naming_its_keyword_is_dated() -> None:
    drift = drift_of((DEV / "drift-14-llm-book-56.txt").read_text())
    assert drift is not None
    assert drift["removed_in"] == "4.51.0"
    assert "evaluation_strategy" in drift["subject"]


CUT = """{title}
```txt
---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
Cell In[26], line 3
      1 from transformers import TrainingArguments
----> 3 training_args = TrainingArguments(
      4     output_dir="out",
      5     warmup_ratio=0.1,
      6     evaluation_strategy="epoch",
      7     fp16=True,
"""


@pytest.mark.parametrize("title", [
    "TrainingArguments fails in chapter 5",                              # names no keyword
    "warmup_ratio and evaluation_strategy both fail",                    # names two: the cell does not say which
])
def test_cut_call_without_one_named_keyword_is_not_dated(title: str) -> None:
    answer = top(CUT.format(title=title))
    assert answer is None or answer.drift is None


def test_cut_call_named_keyword_is_dated_from_a_synthetic_cell() -> None:
    drift = drift_of(CUT.format(title="evaluation_strategy no longer works"))
    assert drift is not None and drift["removed_in"] == "4.51.0"


# (3) prose only, no error line (drift-32-PyTorchStepByStep-61): the title names torch's UnpicklingError of
# torch.load on "PyTorch 2.6", the release whose torch.load defaults to weights_only=True.

def test_named_unpickling_error_on_torch_26_is_the_changed_default() -> None:
    answer = top((DEV / "drift-32-PyTorchStepByStep-61.txt").read_text())
    assert answer is not None and answer.match.entry.family == "checkpoint-io"
    assert answer.drift is not None and answer.drift["removed_in"] == "2.6.0"
    assert any("weights_only=False" in fix for fix in answer.drift["fixes"])


PROSE = "Issue: UnpicklingError when loading model checkpoint with torch.load in {said}\nI get it on every run.\n"


@pytest.mark.parametrize("said", [
    "PyTorch 2.4",                                   # a release before the changed default
    "PyTorch 2.6: invalid load key, 'v'",            # a damaged file (a git-lfs pointer), not the default
    "my notebook",                                   # no torch release named
])
def test_other_unpickling_prose_is_not_the_changed_default(said: str) -> None:
    answer = top(PROSE.format(said=said))
    assert answer is None or answer.drift is None or answer.drift.get("removed_in") != "2.6.0"


def test_the_changed_default_from_a_synthetic_title() -> None:
    answer = top(PROSE.format(said="torch 2.7"))
    assert answer is not None and answer.drift is not None and answer.drift["removed_in"] == "2.6.0"
