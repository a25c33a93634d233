"""The parser-shape test files' shared measure: kb's CPU time per MB of input on hostile lines."""

from __future__ import annotations

import time

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge


def cpu_seconds_per_mb(lines: list[str]) -> float:
    """CPU seconds ``diagnose_lines`` takes on ``lines``, per MB of their text (tests/test_adversarial_time.py asks
    every pattern for under 3)."""
    knowledge = load_knowledge()
    start = time.process_time()
    diagnose_lines(lines, knowledge)
    return (time.process_time() - start) / (sum(map(len, lines)) / 1e6)
