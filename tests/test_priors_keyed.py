"""LineEvidence._look asks a line only for the literals whose key (kb/diagnose/priors.py _keyed: the literal's character
a log's line least often holds) the line holds: the literals found must be exactly those the line holds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.diagnose.priors import LineEvidence, _keyed
from kb.knowledge.index import load_index

PIECES = ["137", "-9", "nan,", "comfy", "/", "\\", ".", "modules", "sd_", "ldm", "k", "K", "学習", " ", "e", "*** ", "!",
          "Error", "x", "tensor(", "[", "é", ""]


def _held(literals: tuple[str, ...], line: str) -> list[str]:
    return sorted(lit for char, some in _keyed(literals) if char in line for lit in some if lit in line)


@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), min_size=1, max_size=12, unique=True),
       st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
@settings(max_examples=300, deadline=None)
def test_the_keyed_literals_a_line_holds_are_the_literals_it_holds(literals: list[str], line: str) -> None:
    lits = tuple(sorted(literals))
    assert _held(lits, line) == sorted(lit for lit in lits if lit in line)


def test_the_tables_literals_on_lines_that_hold_each_of_them() -> None:
    """Every literal of the priors' process and program rules, alone, in a line with the others' characters around."""
    literals = LineEvidence(load_index().tables["priors"]).literals
    assert len(_keyed(literals)) < len(literals)  # (fewer keys than literals: the point of it)
    for lit in literals:
        for line in (lit, f"x {lit} y", f"{lit[:-1]} {lit[1:]}", f"[rank0]: step 137 loss 2.137 {lit}"):
            assert _held(literals, line) == sorted(x for x in literals if x in line)


def test_the_evidence_read_is_the_same_with_and_without_the_keys(monkeypatch) -> None:  # noqa: ANN001
    """A log of "step 137" lines with another program's lines and a process death among them: the rules' lines found
    are the same whether every hit line is asked for every literal or only for its keys' literals."""
    from kb.diagnose import priors
    from kb.diagnose.stream import chunk_lines

    lines = []
    for step in range(3000):
        lines.append(f"2025-11-21 10:00:00,123 - INFO - step {step} loss 2.137 exit code {137 if step % 7 else 9}")
        if step == 1500:
            lines.append('  File "C:\\ComfyUI\\comfy\\model_management.py", line 12, in load')
        if step == 2500:
            lines.append("Process finished with exit code 137")
    table = load_index().tables["priors"]
    found = []
    for after in (0, 10**9):
        monkeypatch.setattr(priors, "KEYED_AFTER", after)
        evidence = LineEvidence(table)
        for _chunk in evidence.scan(chunk_lines(lines, 512)):
            pass
        found.append((dict(evidence.hits), evidence._read_left, evidence._read_to))
    assert found[0] == found[1]
    assert found[0][0]  # (something was found: the comparison is not of two empty readings)
