"""Helpers the drift test files share (tests/test_drift_forms_*.py, test_drift45_history.py, test_drift47.py,
test_drift48.py): kb's first answer to a text (as an Answer, or as the document's first match), and its drift section
when that answer is api-drift's."""

from __future__ import annotations

from pathlib import Path

import kb
from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"


def top(text: str):  # noqa: ANN201 - an Answer
    """kb's first answer to ``text``, or None."""
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    return answers[0] if answers else None


def top_match(text: str) -> dict | None:
    """The first match of the document kb gives for ``text`` (the notebook API's, as a user reads it), or None."""
    answers = kb.diagnose_text(text).document["matches"]
    return answers[0] if answers else None


def drift_of(text: str) -> dict | None:
    """The drift section of kb's first answer to ``text``, which must be api-drift's."""
    answer = top(text)
    assert answer is not None and answer.match.entry.family == "api-drift"
    return answer.drift
