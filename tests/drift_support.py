"""Helpers the drift-form test files share (tests/test_drift_forms_*.py): kb's first answer to a text, and its drift
section when that answer is api-drift's."""

from __future__ import annotations

from pathlib import Path

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"


def top(text: str):  # noqa: ANN201 - an Answer
    """kb's first answer to ``text``, or None."""
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    return answers[0] if answers else None


def drift_of(text: str) -> dict | None:
    """The drift section of kb's first answer to ``text``, which must be api-drift's."""
    answer = top(text)
    assert answer is not None and answer.match.entry.family == "api-drift"
    return answer.drift
