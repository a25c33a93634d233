"""Issue #25, drift-34's misses made general (kb/diagnose/drift.py, kb/apidrift/answer.py, families/api-drift.md):
a closing quote lost to a report's backticks, a function or method named without its class, a keyword quoted
without its callable, and a removal whose replacement a deprecation elsewhere in the library names. Inputs are
written the way reports show them; the releases are the history's (tables/api-history.json.gz)."""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.drift import recognise
from kb.knowledge.registry import load_knowledge
from drift_support import drift_of


@pytest.mark.parametrize(("message", "expected"), [
    ("No module named 'transformers.modeling_bert`", ("no-module", {"module": "transformers.modeling_bert"})),
    ("No module named 'transformers.modeling_bert", ("no-module", {"module": "transformers.modeling_bert"})),
    ("'Attention' object has no attribute 'output_attentions`",
     ("object-attribute", {"cls": "Attention", "name": "output_attentions"})),
    ("unexpected keyword argument 'load_in_4bit'", ("unexpected-kwarg", {"callable": "", "name": "load_in_4bit"})),
])
def test_quotes_cut_by_markdown_and_a_missing_callable_are_recognised(message: str, expected: tuple) -> None:
    assert recognise("ModuleNotFoundError", message) == expected


def test_closed_quotes_are_left_alone() -> None:
    assert recognise("ImportError", "cannot import name `X` from `y`") == ("import-name", {"name": "X", "module": "y"})
    assert recognise("ModuleNotFoundError", "No module named 'a.b'") == ("no-module", {"module": "a.b"})


def test_backtick_quoted_module_error_is_answered_with_its_new_place() -> None:
    d = drift_of("transformers version problem?\n`ModuleNotFoundError: No module named 'transformers.modeling_bert`\n")
    assert d is not None and d["removed_in"] == "4.0.0"
    assert d["moved_to"] == "transformers.models.bert.modeling_bert"


def test_function_named_without_its_class_takes_the_tracked_method_and_the_shared_deprecation() -> None:
    d = drift_of("TypeError: create_repo() got an unexpected keyword argument 'name'\n")
    assert d is not None and d["subject"] == "huggingface_hub.HfApi.create_repo(name=...)"
    assert d["removed_in"] == "0.11.0" and d["renamed_to"] == "repo_id"
    assert any("HfApi.create_repo(..., repo_id=...)" in fix for fix in d["fixes"])


def test_method_known_only_from_its_deprecation_records() -> None:
    d = drift_of("TypeError: forward() got an unexpected keyword argument 'past'\n")
    assert d is not None and d["library"] == "transformers"
    assert d["removed_in"] == "4.0.0" and d["renamed_to"] == "past_key_values"


def test_keyword_without_callable_answers_when_the_callables_agree() -> None:
    d = drift_of("unexpected keyword argument 'load_in_4bit'\n")
    assert d is not None and d["library"] == "transformers" and d["added_in"] == "4.30.0"


@pytest.mark.parametrize("text", [
    "unexpected keyword argument 'token'\n",                           # datasets, hub, peft, transformers: each its own
    "TypeError: __init__() got an unexpected keyword argument 'debug'\n",  # no class, no agreeing callables
])
def test_keyword_whose_callables_disagree_gets_no_release(text: str) -> None:
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    assert not answers or answers[0].drift is None
