"""The fact scanners' searches read the same lines as a plain per-line check (kb/diagnose/drift.py VersionScanner
searches each library name once, then keeps the lines holding a name and a separator; kb/diagnose/priors.py
LineEvidence finds a line's candidate rules by the literals it holds)."""

from __future__ import annotations

import pytest

from kb.diagnose import priors
from kb.diagnose.versions import VersionScanner
from kb.diagnose.priors import LineEvidence
from kb.knowledge.tables import read_table

FILLER = "2025-11-21 10:00:00,123 - INFO - trainer - step 1 loss 2.0010 epoch 0.001\n"


def _chunk(text: str) -> tuple[str, list[str]]:
    return text, text.split("\n")


class _Recording(VersionScanner):
    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def _look(self, line: str, above: str = "") -> None:
        self.read.append(line)
        super()._look(line, above)


@pytest.mark.parametrize("filler_lines", [0, 2000])  # a short text (str.find) and a long one (the remainder)
def test_version_scanner_reads_exactly_the_lines_holding_a_token(filler_lines: int) -> None:
    lines = ["the transformersX 4.1 package", "transformers 4.38.2", "Transformers-4.30.0 was used",
             "trlx 0.2.0", "trl: 0.11.3", "peftless 1.0", "datasets`2.14.0`", "bitsandbytesnothing"]
    text = FILLER * filler_lines + "\n".join(lines) + "\n"
    scanner = _Recording()
    for _ in scanner.scan([_chunk(text)]):
        pass
    expected = [line for line in text.split("\n") if any(t in line for t in scanner._tokens)]
    assert scanner.read == expected
    assert "transformersX 4.1 package" not in scanner.read and "trl: 0.11.3" in scanner.read
    assert scanner.facts["trl_version"] == "0.11.3"


def _reference_hits(table: dict, text: str) -> dict[int, tuple[int, str]]:
    """Each rule's first line, found the slow way: every line, every pending rule, the same budget."""
    rules = list(table["process"])
    hits: dict[int, tuple[int, str]] = {}
    left = priors.MAX_PROCESS_LINES
    for number, raw in enumerate(text.split("\n"), 1):
        if left <= 0 or len(hits) == len(rules):
            break
        if not any(lit in raw for r in rules for lit in r["literals"]):
            continue
        line = raw[: priors.LINE_CHARS].strip()
        candidates = [i for i in range(len(rules)) if i not in hits and any(lit in line for lit in rules[i]["literals"])]
        if not candidates:
            continue
        left -= 1
        for i in candidates:
            rule = rules[i]
            if priors._rx(rule["line"]).search(line) and not any(priors._rx(p).search(line) for p in rule["excludes"]):
                hits[i] = (number, line)
    return hits


def test_process_evidence_hits_match_a_per_line_check() -> None:
    table = read_table("priors")
    literals = sorted({lit for r in table["process"] for lit in r["literals"]})
    # every literal on a line of its own, then lines holding two, amid filler and repeated "137"s
    body = [f"step {i} exit 137" for i in range(50)]
    body += [f"x {lit} y" for lit in literals]
    body += [f"{a} and {b}" for a, b in zip(literals, reversed(literals))]
    body += ["Killed", "bash: line 1: 4242 Killed python train.py", "exitcode: -9", "Signal 9 (SIGKILL) received"]
    text = FILLER * 1500 + "\n".join(body) + "\n"
    evidence = LineEvidence(table)
    for _ in evidence.scan([_chunk(text)]):
        pass
    expected = _reference_hits(table, text)
    assert expected  # the table's own literals and lines find some rule
    assert evidence.hits == expected
