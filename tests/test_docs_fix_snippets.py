"""Each case's fix snippet ([fix] snippet) is copied from its fixed program, never retyped.

The rule is kb/tidy/snippets.py's (`kb check` applies it too): the snippet's non-blank lines must
appear, in order and whitespace-normalised, in one of the case's fixed programs, so the snippet
cannot drift from the code whose run the evidence records.
"""

from __future__ import annotations

import pytest

from kb.knowledge.model import Case
from kb.knowledge.registry import all_cases
from kb.tidy.snippets import appears_in_order, normalised, snippet_problem


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_fix_snippet_is_taken_from_a_fixed_program(case: Case) -> None:
    problem = snippet_problem(case)
    assert problem is None, f"{case.id}: {problem}"


def test_the_check_rejects_a_retyped_line() -> None:
    program = normalised("a = 1\n\nb = f(a,  2)  # note\nc = 3\n")
    assert appears_in_order(normalised("  b = f(a, 2)  # note\nc = 3"), program)
    assert not appears_in_order(normalised("b = f(a, 2)"), program)  # the comment is part of the line
    assert not appears_in_order(normalised("c = 3\na = 1"), program)  # out of order


def test_every_reproduced_case_has_a_snippet() -> None:
    missing = [c.id for c in all_cases() if c.reproductions and not c.fix_snippet.strip()]
    assert not missing, f"cases without [fix] snippet: {missing}"
