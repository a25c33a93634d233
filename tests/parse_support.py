"""The parser-shape test files' shared helpers: the errors the parser reads in a text, and kb's CPU time per MB of
input on hostile lines."""

from __future__ import annotations

import time

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.errors import ParsedError
from kb.diagnose.stream import parse
from kb.knowledge.registry import load_knowledge


def errors(text: str) -> list[ParsedError]:
    """Every error the parser reads in ``text``, with the knowledge's literals (as kb diagnose reads it)."""
    knowledge = load_knowledge()
    return list(parse(text.splitlines(keepends=True), knowledge.literals(), knowledge.leading_literals()))


def cpu_seconds_per_mb(lines: list[str]) -> float:
    """CPU seconds ``diagnose_lines`` takes on ``lines``, per MB of their text (tests/test_adversarial_time.py asks
    every pattern for under 3)."""
    knowledge = load_knowledge()
    start = time.process_time()
    diagnose_lines(lines, knowledge)
    return (time.process_time() - start) / (sum(map(len, lines)) / 1e6)
