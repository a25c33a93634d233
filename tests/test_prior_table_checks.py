"""The loader's checks of tables/priors.toml that no other test reached: each rejects a table that would read wrongly.

- a frame rule's ``cut_key`` (a cut traceback read by the key it looked up) needs the classes it reads (``types``) and
  the words of the code that looks the key up (``lookup``): without them it would hold for any cut traceback;
- ``[other_code]`` ``record`` must name the group ``source`` (the file that printed a log record), which
  ``other_software_record`` reads;
- a process rule needs a literal to find its lines by, and an ``[[error]]`` rule names types or a message.
The shipped table passes every check (the first test), so each failure below comes from the one edit it makes.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rules_support import priors

from kb.knowledge.model import KnowledgeError
from kb.knowledge.tables import check_prior_regexes


def _table() -> dict[str, Any]:
    return copy.deepcopy(priors())


def test_the_shipped_table_passes_every_check() -> None:
    check_prior_regexes(_table(), "tables/priors.toml")


def _cut_key_rule(table: dict[str, Any]) -> dict[str, Any]:
    rules = [rule for rule in table["frame"] if rule["cut_key"]]
    assert rules, "tables/priors.toml has no frame rule with cut_key: this test has nothing to check"
    return rules[0]


@pytest.mark.parametrize("emptied", ["types", "lookup"])
def test_a_cut_key_rule_without_its_classes_or_lookup_words_is_rejected(emptied: str) -> None:
    table = _table()
    rule = _cut_key_rule(table)
    rule[emptied] = [] if isinstance(rule[emptied], list) else ""
    with pytest.raises(KnowledgeError, match=r"frame\[\d+\]\.cut_key"):
        check_prior_regexes(table, "tables/priors.toml")


def test_a_log_record_pattern_without_its_source_group_is_rejected() -> None:
    table = _table()
    record = table["other_code"]["record"]
    assert "(?P<source>" in record
    table["other_code"]["record"] = record.replace("(?P<source>", "(?:")
    with pytest.raises(KnowledgeError, match="names no group `source`"):
        check_prior_regexes(table, "tables/priors.toml")


def test_a_process_rule_with_an_empty_literal_is_rejected() -> None:
    table = _table()
    table["process"][0]["literals"] = [*table["process"][0]["literals"], ""]
    with pytest.raises(KnowledgeError, match=r"process\[0\]\.literals"):
        check_prior_regexes(table, "tables/priors.toml")


def test_an_error_rule_naming_neither_types_nor_a_message_is_rejected() -> None:
    table = _table()
    table["error"][0]["types"] = []
    table["error"][0]["message"] = ""
    with pytest.raises(KnowledgeError, match=r"error\[0\]: names neither"):
        check_prior_regexes(table, "tables/priors.toml")


def test_every_cut_key_the_schema_accepts_is_one_the_drift_reader_knows_and_back() -> None:
    """kb/knowledge/schema.py lists cut_key's choices; kb/diagnose/drift.py maps each to the history's check. A choice
    added to one and not the other would pass the loader and then fail at diagnosis (a KeyError), or never be usable."""
    from kb.diagnose.drift import _KEY_KINDS
    from kb.knowledge.schema import PRIOR_FRAME

    choices = next(field.choices for field in PRIOR_FRAME if field.name == "cut_key")
    assert set(choices) - {""} == set(_KEY_KINDS)


def test_a_process_rule_asking_for_the_stack_without_context_is_rejected() -> None:
    """needs_stack narrows needs_context (only the [stack] words count in the other first lines); set alone it does
    nothing, silently (review41)."""
    table = _table()
    rules = [rule for rule in table["process"] if rule.get("needs_stack")]
    assert rules, "tables/priors.toml has no process rule with needs_stack: this test has nothing to check"
    rules[0]["needs_context"] = False
    with pytest.raises(KnowledgeError, match=r"process\[\d+\]\.needs_stack"):
        check_prior_regexes(table, "tables/priors.toml")


def test_a_cut_rule_that_names_classes_is_rejected() -> None:
    """(review43) A `cut` rule holds only where no class is shown: classes on it would make it hold nowhere."""
    table = _table()
    rules = [rule for rule in table["frame"] if rule.get("cut")]
    assert rules, "tables/priors.toml has no frame rule with cut: this test has nothing to check"
    rules[0]["types"] = ["ValueError"]
    with pytest.raises(KnowledgeError, match=r"frame\[\d+\]\.cut: "):
        check_prior_regexes(table, "tables/priors.toml")
