"""(turn 50, issue 26: start-up) "No module named 'peft'", a library the API history covers, not one of its modules:
kb/diagnose/drift.py answers it with kb/apidrift/section.py, without importing kb/apidrift/answer.py (3,000 lines).
answer.py's own answer to the form builds the same section there: compared here for every covered library, and for a
module of one (which still goes through answer.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.apidrift.answer import answer
from kb.apidrift.history import load_history
from kb.diagnose.drift import drift_section
from kb.diagnose.redact import redact_tree
from test_startup_lazy import modules_after


def _libraries() -> list[str]:
    return sorted(load_history().libraries())


def test_the_history_covers_libraries() -> None:
    assert {"peft", "transformers", "torch"} <= set(_libraries())


@pytest.mark.parametrize("lib", _libraries())
def test_a_missing_library_is_answered_as_answer_py_answers_it(lib: str) -> None:
    section = drift_section("ModuleNotFoundError", f"No module named '{lib}'")
    assert section is not None and section["library"] == lib and section["subject"] == f"import {lib}"
    assert section == redact_tree(answer("no-module", {"module": lib}, {}, None))
    assert list(section) == list(answer("no-module", {"module": lib}, {}, None))  # (the same keys in the same order)


def test_a_module_of_a_covered_library_still_goes_through_answer_py() -> None:
    section = drift_section("ModuleNotFoundError", "No module named 'peft.tuners.lora.nonexistent_module'")
    assert section == redact_tree(answer("no-module", {"module": "peft.tuners.lora.nonexistent_module"}, {}, None))


def test_a_library_the_history_does_not_cover_has_no_section() -> None:
    assert drift_section("ModuleNotFoundError", "No module named 'flash_attn'") is None


def test_no_module_named_peft_does_not_import_answer_py(tmp_path: Path) -> None:
    loaded = modules_after("ModuleNotFoundError: No module named 'peft'\n", tmp_path)
    assert "kb.apidrift.section" in loaded and "kb.diagnose.drift" in loaded  # (the drift stage answered)
    assert "kb.apidrift.answer" not in loaded


def test_an_attribute_of_none_does_not_import_the_fallback(tmp_path: Path) -> None:
    """(turn 50) An error the API history judges (an attribute of one of Python's own types) never reaches the learned
    fallback: kb/diagnose/diagnosis.py asks before importing kb/diagnose/fallback.py (and math)."""
    loaded = modules_after("AttributeError: 'NoneType' object has no attribute 'shape'\n", tmp_path)
    assert "kb.diagnose.drift" in loaded and "kb.diagnose.prior_rules" in loaded  # (the stages before it ran)
    assert "kb.diagnose.fallback" not in loaded and "math" not in loaded


def test_an_error_the_history_does_not_judge_still_reaches_the_fallback(tmp_path: Path) -> None:
    loaded = modules_after("ValueError: foo bar baz qux\n", tmp_path)
    assert "kb.diagnose.fallback" in loaded
