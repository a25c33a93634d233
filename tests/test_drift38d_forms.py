"""Issue #25, a form no parse read before (kb/diagnose/drift.py, recognise):

huggingface_hub's lazy ``__getattr__`` words a missing top-level name as "AttributeError: No huggingface_hub attribute
list_files_info" (no quotes, no "module", no "has"): the same miss as Python's "module 'huggingface_hub' has no
attribute 'list_files_info'" (drift-52-huggingface-China-4, a Colab notebook; list_files_info gone in
huggingface_hub 0.23.0).
"""

from __future__ import annotations

import pytest

from drift_support import DEV, drift_of
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
