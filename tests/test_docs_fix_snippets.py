"""Each case's fix snippet ([fix] snippet) is copied from its fixed program, never retyped.

The snippet is what a case page and `kb show` print first: the few lines that change. Its
non-blank lines must appear, in order and whitespace-normalised, in one of the case's fixed
programs, so the snippet cannot drift from the code whose run the evidence records.
"""

from __future__ import annotations

import pytest

from kb.knowledge.model import Case
from kb.knowledge.registry import all_cases


def normalised(text: str) -> list[str]:
    """Non-blank lines with runs of whitespace collapsed and ends stripped."""
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def appears_in_order(snippet: list[str], program: list[str]) -> bool:
    """Every snippet line is a line of ``program``, in the snippet's order (other lines may lie between)."""
    lines = iter(program)
    return all(any(line == wanted for line in lines) for wanted in snippet)


def fixed_programs(case: Case) -> dict[str, list[str]]:
    names = dict.fromkeys(rep.fixed for rep in case.reproductions)
    return {name: normalised(case.program_source(name)) for name in names}


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_fix_snippet_is_taken_from_a_fixed_program(case: Case) -> None:
    if not case.reproductions:  # nothing verified to copy from (unreproduced): no snippet claims a fix
        assert not case.fix_snippet.strip(), f"{case.id} has no fixed program, so its snippet cannot be checked"
        return
    snippet = normalised(case.fix_snippet)
    assert snippet, f"{case.id}: [fix] snippet is missing (the few lines of the fixed program that are the fix)"
    programs = fixed_programs(case)
    if not any(appears_in_order(snippet, lines) for lines in programs.values()):
        absent = [line for line in snippet if all(line not in p for p in programs.values())]
        pytest.fail(f"{case.id}: [fix] snippet is not in {', '.join(programs)}: "
                    + (f"no fixed program has the line {absent[0]!r}" if absent else "its lines are out of order"))


def test_the_check_rejects_a_retyped_line() -> None:
    program = normalised("a = 1\n\nb = f(a,  2)  # note\nc = 3\n")
    assert appears_in_order(normalised("  b = f(a, 2)  # note\nc = 3"), program)
    assert not appears_in_order(normalised("b = f(a, 2)"), program)  # the comment is part of the line
    assert not appears_in_order(normalised("c = 3\na = 1"), program)  # out of order


def test_every_reproduced_case_has_a_snippet() -> None:
    missing = [c.id for c in all_cases() if c.reproductions and not c.fix_snippet.strip()]
    assert not missing, f"cases without [fix] snippet: {missing}"
