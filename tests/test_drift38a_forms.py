"""Issue #25, drift-49's parse misses made general (kb/diagnose/drift.py; tests/fixtures/diagnose/drift-49-*):

(1) words before Python's "module 'torch' has no attribute 'x'" on its line: a title's node name (ComfyUI_InvSR-32)
or a host's log prefix ("!!! Exception during processing !!! module 'torch' ...");
(2) a garbled title ("attributeError : moduletorch has no attribute 'get default device'") with Python's exact words
on a later line of the report (ComfyUI-Florence2-159);
(3) a title cut before the module's closing quote ("... from 'transformers.pytorch_utils", MiniCPM-V-722), which no
signature matches: the history answers it, and an installed release inside a gap ("4.48.2 has it again") is not
"the installed release has it".
"""

from __future__ import annotations

import pytest

from kb.diagnose.drift import recognise
from drift_support import DEV, drift_of, top


@pytest.mark.parametrize("line", [
    "LoadInvSRModels module 'torch' has no attribute 'get_default_device'",
    "2025-05-29T16:05:25.609827 - !!! Exception during processing !!! module 'torch' has no attribute 'get_default_device'",
    "Error: module 'torch' has no attribute 'get_default_device'",
])
def test_words_before_a_module_attribute(line: str) -> None:
    assert recognise("", line) == ("module-attribute", {"name": "get_default_device", "module": "torch"})


@pytest.mark.parametrize("line", [
    "'module' object has no attribute 'no_grad'",  # Python 2: the module is read off a code line, not here
    "submodule 'torch' has no attribute 'x'",  # not Python's wording
])
def test_other_wordings_are_not_read_as_a_module_attribute(line: str) -> None:
    found = recognise("AttributeError", line)
    assert found is None or found[1].get("module") != "torch"


def test_a_module_quote_cut_at_the_line_end() -> None:
    found = recognise("ImportError", "cannot import name 'is_torch_greater_or_equal_than_1_13' from 'transformers.pytorch_utils")
    assert found == ("import-name", {"name": "is_torch_greater_or_equal_than_1_13", "module": "transformers.pytorch_utils"})


@pytest.mark.parametrize("name", ["drift-49-ComfyUI_InvSR-32.txt", "drift-49-ComfyUI-Florence2-159.txt"])
def test_get_default_device_is_dated(name: str) -> None:
    drift = drift_of((DEV / name).read_text())
    assert drift is not None
    assert drift["added_in"] == "2.3.0"
    assert drift["subject"].endswith("get_default_device")


def test_an_installed_release_in_a_gap_is_answered() -> None:
    """drift-49-MiniCPM-V-722: transformers 4.48.0 lacks the name, 4.47.1 had it, 4.48.2 has it again (was silent)."""
    answer = top((DEV / "drift-49-MiniCPM-V-722.txt").read_text())
    assert answer is not None and answer.match.entry.family == "api-drift"
    facts = " ".join(answer.drift["facts"])
    assert "the installed transformers 4.48.0 lies in a gap" in facts
    assert any("4.48.2" in fix for fix in answer.drift["fixes"])


def test_a_later_line_is_read_only_for_exact_import_and_attribute_wording() -> None:
    from kb.diagnose.drift import _later_line

    assert _later_line("", "garbled title\nsome prose about has no attribute in general") is None
    assert _later_line("", "garbled title\nNo module named 'torch._six'") == ("no-module", {"module": "torch._six"})
    assert _later_line("", "title\n'NoneType' object has no attribute 'shape'") is None  # an object's: not read here


def test_a_bare_keyword_the_report_ties_to_its_library() -> None:
    """drift-43-Mol-Instructions-14: "__init__() got an unexpected keyword argument 'enable_lora'" and the report's
    `PeftModel.from_pretrained(...)`: the peft callables whose acceptance changed agree (gone in peft 0.3.0); the
    report naming peft confirms the keyword-alone reading, which answers alone (was silent)."""
    answer = top((DEV / "drift-43-Mol-Instructions-14.txt").read_text())
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift["removed_in"] == "0.3.0" and answer.drift["library"] == "peft"


def test_the_keyword_itself_does_not_name_the_library() -> None:
    from kb.diagnose.drift import _named_by_report

    section = {"library": "peft", "facts": ["the error names no callable: the covered peft callables ... agree"]}
    assert not _named_by_report(section, ["TypeError: __init__() got an unexpected keyword argument 'peft_config'"])
    assert _named_by_report(section, ["TypeError: __init__() got an unexpected keyword argument 'x'",
                                      "model = PeftModel.from_pretrained(base, path)"])
    assert _named_by_report(section, ["pip install peft==0.2.0"])
    # a class read off a near name stays a guess, whatever the report names
    near = {"library": "peft", "facts": ["near name: `LoraConfig`"]}
    assert not _named_by_report(near, ["import peft"])
