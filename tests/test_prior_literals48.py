"""(turn 48, issue 26: start-up) The priors stage searches a message with an [[error]] rule's regex only when it holds
one of the literals the index computed for that regex (kb/knowledge/index_build.py prior_literals, from
kb/knowledge/prefilter.py any_literals): an error no signature answered builds few of the rules' regexes. A filter,
never an answer: a regex that matches a text finds one of its literals there, and the stage's answer is the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kb.diagnose import prior_rules
from kb.diagnose.errors import ParsedError
from kb.knowledge.index import load_index

REPO = Path(__file__).resolve().parent.parent
TEXTS = [p.read_text(encoding="utf-8", errors="replace")[:4000]
         for p in sorted((REPO / "tests" / "fixtures" / "diagnose").rglob("*.txt"))[::7]]


@pytest.fixture(scope="module")
def knowledge():  # noqa: ANN201 - kb.knowledge's model
    return load_index()


def test_a_rule_that_matches_a_text_finds_one_of_its_literals_there(knowledge) -> None:  # noqa: ANN001
    literals = knowledge.prior_literals
    rules = [r for r in knowledge.tables["priors"]["error"] if r["message"] in literals]
    assert len(rules) >= 40  # (most of the rules with a message)
    matched = 0
    for rule in rules:
        regex = re.compile(rule["message"])
        for text in TEXTS:
            if regex.search(text):
                matched += 1
                assert any(lit in text for lit in literals[rule["message"]]), (rule["message"], text[:200])
    assert matched > 10


@pytest.mark.parametrize(("line", "fewer"), [
    ("AttributeError: 'NoneType' object has no attribute 'shape'", True),
    ("ValueError: foo bar baz qux", True),
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled system error",
     False),  # (a rule answers at once)
    ("OSError: [WinError 1455] The paging file is too small for this operation to complete", True),
])
def test_the_error_prior_is_the_same_with_fewer_regexes(knowledge, monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
                                                        line: str, fewer: bool) -> None:
    kind, _, message = line.partition(": ")
    root = ParsedError(kind, message, line_no=1)
    table = knowledge.tables["priors"]
    built: list[str] = []
    real = prior_rules._rx

    def counted(source: str, *args: object) -> object:
        built.append(source)
        return real(source, *args)

    monkeypatch.setattr(prior_rules, "_rx", counted)
    fast = prior_rules._error_prior(root, table, knowledge)
    with_literals = len(built)
    built.clear()
    monkeypatch.setattr(knowledge, "prior_literals", {})
    slow = prior_rules._error_prior(root, table, knowledge)
    assert (fast is None) == (slow is None)
    if fast is not None:
        assert (fast.entry.key, fast.evidence, fast.score) == (slow.entry.key, slow.evidence, slow.score)
    assert with_literals < len(built) if fewer else with_literals <= len(built)
