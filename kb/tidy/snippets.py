"""A case's fix snippet ([fix] snippet) is copied from its fixed program, never retyped.

The snippet is what a case page and `kb show` print first: the few lines that change. Its
non-blank lines must appear, in order and whitespace-normalised, in one of the case's fixed
programs, so the snippet cannot drift from the code whose run the evidence records.
"""

from __future__ import annotations

from kb.knowledge.model import Case


def normalised(text: str) -> list[str]:
    """Non-blank lines with runs of whitespace collapsed and ends stripped."""
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def appears_in_order(snippet: list[str], program: list[str]) -> bool:
    """Every snippet line is a line of ``program``, in the snippet's order (other lines may lie between)."""
    lines = iter(program)
    return all(any(line == wanted for line in lines) for wanted in snippet)


def fixed_programs(case: Case) -> dict[str, list[str]]:
    """Each fixed program of the case (by file name), normalised."""
    names = dict.fromkeys(rep.fixed for rep in case.reproductions)
    return {name: normalised(case.program_source(name)) for name in names}


def snippet_problem(case: Case) -> str | None:
    """Why the case's [fix] snippet breaks the rule, or None when it keeps it."""
    if not case.reproductions:  # nothing verified to copy from (unreproduced): no snippet may claim a fix
        if case.fix_snippet.strip():
            return "[fix] snippet given, but the case has no fixed program to copy it from (no reproduction)"
        return None
    snippet = normalised(case.fix_snippet)
    if not snippet:
        return "[fix] snippet is missing (the few lines of the fixed program that are the fix, copied from it)"
    try:
        programs = fixed_programs(case)
    except (OSError, UnicodeDecodeError) as exc:
        return f"[fix] snippet cannot be checked: a fixed program cannot be read ({exc})"
    if any(appears_in_order(snippet, lines) for lines in programs.values()):
        return None
    absent = [line for line in snippet if all(line not in p for p in programs.values())]
    where = ", ".join(programs)
    if absent:
        return f"[fix] snippet is not in {where}: no fixed program has the line {absent[0]!r}"
    return f"[fix] snippet is not in {where}: its lines are out of order"
