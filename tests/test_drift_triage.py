"""Issue #25 item 3: triage by error form. Each form is recognised in the error line (kb/diagnose/drift.py) and
answered (kb/apidrift/answer.py) with the replacement and the exact release, or an honest "no replacement".

The member, enum-value and default forms read the history's v2 functions (find_classes, member_versions,
value_versions, default_history; /work/wt/shared/drift-history-interface.md) when the history has them; here they
are given by a small synthetic history, so these tests do not depend on the shipped data. The forms that a verified
drift/ entry answers (its exact release and replacement) are checked on the real entries and on real reports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.apidrift import answer as answers
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.drift import recognise
from kb.knowledge.registry import load_knowledge

FIXTURES = Path(__file__).parent / "fixtures" / "diagnose"


class SyntheticHistory:
    """The part of kb.apidrift.history.History the answers read, with v2's member/enum/default records."""

    def __init__(self) -> None:
        self.v = {"transformers": ["4.47.1", "4.48.0", "4.48.3", "4.49.0", "4.50.0"],
                  "torch": ["2.4.1", "2.5.0", "2.5.1", "2.6.0", "2.7.0"]}

    def libraries(self) -> list[str]:
        return list(self.v)

    def versions(self, lib: str) -> list[str]:
        return self.v.get(lib, [])

    def release(self, lib: str, version: str) -> str | None:
        return version if version in self.v.get(lib, []) else None

    def renames(self, lib: str) -> list[dict]:
        return []

    def callables(self, lib: str) -> list[str]:
        return []

    def find_classes(self, name: str, lib: str | None = None) -> list[tuple[str, str]]:
        return {"DynamicCache": [("transformers", "transformers.DynamicCache")],
                "OptimizerNames": [("transformers", "transformers.training_args.OptimizerNames")]}.get(name, [])

    def member_versions(self, lib: str, path: str, member: str) -> tuple[list[str], list[str]]:
        having = ["4.47.1", "4.48.0", "4.48.3"] if member == "get_max_length" else self.v[lib]
        return self.v[lib], having

    def value_versions(self, lib: str, path: str, value: str) -> tuple[list[str], list[str]]:
        return self.v[lib], (["4.49.0", "4.50.0"] if value == "grokadamw_new" else self.v[lib])

    def default_history(self, lib: str, path: str, param: str) -> list[tuple[str, list[str]]]:
        if (lib, path, param) != ("torch", "torch.load", "weights_only"):
            return []
        return [("None -> False", ["2.4.1", "2.5.0", "2.5.1"]), ("None -> True", ["2.6.0", "2.7.0"])]


def run(form: str, fields: dict, facts: dict | None = None) -> dict:
    d = answers._ANSWER[form](answers.Drift(form, None), SyntheticHistory(), fields, facts or {}, None)
    assert d is not None
    return d.doc


# ----------------------------------------------------------------------------- recognising the forms

@pytest.mark.parametrize(("error_type", "message", "form", "fields"), [
    ("ValueError", "paged_adamw_32bit is not a valid OptimizerNames, please select one of ['adamw_hf', 'adamw_torch']",
     "enum-value", {"value": "paged_adamw_32bit", "enum": "OptimizerNames"}),
    ("ValueError", "'adalomo' is not a valid OptimizerNames", "enum-value", {"value": "adalomo", "enum": "OptimizerNames"}),
    ("_pickle.UnpicklingError", "Weights only load failed. This file can still be loaded, to do so you have two options",
     "default-change", {"callable": "torch.load", "name": "weights_only"}),
    ("AttributeError", "'DynamicCache' object has no attribute 'get_max_length'. Did you mean: 'get_seq_length'?",
     "object-attribute", {"cls": "DynamicCache", "name": "get_max_length"}),
])
def test_the_forms_are_recognised(error_type: str, message: str, form: str, fields: dict) -> None:
    found = recognise(error_type, message)
    assert found is not None and found[0] == form
    assert {k: v for k, v in found[1].items() if k in fields} == fields


@pytest.mark.parametrize("message", [
    "'red' is not a valid color",           # a lower-case name: not an Enum class
    "x is not a valid integer literal",
])
def test_prose_that_only_looks_like_an_enum_error_is_not_that_form(message: str) -> None:
    found = recognise("ValueError", message)
    assert found is None or found[0] != "enum-value"


# ----------------------------------------------------------------------------- answers from the history (v2 records)

def test_a_removed_member_names_its_replacement_and_exact_release() -> None:
    doc = run("object-attribute", {"cls": "DynamicCache", "name": "get_max_length"})
    assert doc["removed_in"] == "4.49.0"  # the drift/ entry and the member records agree on the patch-exact release
    assert "transformers.DynamicCache.get_max_cache_shape" in (doc["renamed_to"], doc["moved_to"])
    assert any("get_max_cache_shape" in fix for fix in doc["fixes"])


def test_an_enum_value_newer_than_the_install_says_upgrade_to_the_release_that_added_it() -> None:
    doc = run("enum-value", {"value": "grokadamw_new", "enum": "OptimizerNames"}, {"transformers_version": "4.48.3"})
    assert doc["added_in"] == "4.49.0"
    assert any("transformers>=4.49.0" in fix for fix in doc["fixes"])


def test_a_changed_default_names_the_release_and_the_call_that_restores_the_old_behaviour() -> None:
    doc = run("default-change", {"callable": "torch.load", "name": "weights_only", "message": "Weights only load failed."})
    assert doc["removed_in"] == "2.6.0"
    assert any("weights_only=False" in fix for fix in doc["fixes"])
    assert any("from None -> False to None -> True in torch 2.6.0" in fact for fact in doc["facts"])


def test_a_history_without_v2_records_answers_nothing_for_an_unknown_default() -> None:
    class NoV2:  # today's shipped history: no default records, no torch
        def libraries(self) -> list[str]:
            return ["transformers"]

        def renames(self, lib: str) -> list[dict]:
            return []

    d = answers._default_change(answers.Drift("default-change", None), NoV2(),
                                {"callable": "torch.load", "name": "weights_only", "message": ""}, {}, None)
    assert d is None  # no record, no verified entry: silence rather than a guessed release


# ----------------------------------------------------------------------------- real reports (drift-32 batch)

def drift_of(fixture: str) -> dict:
    with open(FIXTURES / "dev" / fixture, encoding="utf-8") as handle:
        result = diagnose_lines(handle, load_knowledge()).answers
    assert result, f"{fixture}: no answer"
    assert result[0].drift is not None, f"{fixture}: no drift section"
    return result[0].drift


@pytest.mark.parametrize(("fixture", "key", "release", "replacement"), [
    ("drift-32-Firefly-69.txt", "added_in", "4.30.0", None),            # enum value, from drift/transformers-optim-paged-adamw-32bit
    ("drift-32-transformers-31651.txt", "added_in", "4.42.0", None),    # title only: "adalomo is not a valid OptimizerNames"
    ("drift-32-AlphaEdit-27.txt", "added_in", "4.28.0", None),          # KeyError: 'llama' before the history's coverage
    ("drift-32-SmartEdit-13.txt", "removed_in", "0.5.0", "peft.PeftConfig"),
    ("drift-32-hira-pr11.txt", "removed_in", "0.6.0", "peft.config"),  # No module named 'peft.utils.config'
])
def test_real_reports_get_the_exact_release_and_the_replacement(fixture: str, key: str, release: str,
                                                                 replacement: str | None) -> None:
    drift = drift_of(fixture)
    assert drift[key] == release
    if replacement:
        assert replacement in (drift["renamed_to"], drift["moved_to"])


def test_the_drift_32_batch_has_no_wrong_answer() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
    from drift_answers import evaluate

    grades = [row["grade"] for row in evaluate("drift-32")]
    assert len(grades) == 27
    assert grades.count("wrong") == 0
