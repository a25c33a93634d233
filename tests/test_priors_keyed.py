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
