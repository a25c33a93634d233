"""Renderings of cases and families shared by the CLI (`kb show`, `kb list`) and the docs pages."""

from __future__ import annotations

import difflib
from typing import Any

from kb.diagnose.advice import with_fallbacks
from kb.knowledge.model import Case, Family, Knowledge
from kb.knowledge.reproductions import Reproduction
from kb.knowledge.evidence import observed
from kb.knowledge.pins import pins_text


def fix_text(entry: Case | Family) -> str:
    """The fix as `kb diagnose` prints it when the output shows none of the values its placeholders take:
    each at its fallback, never as ``{name|...}`` markup, and keywords as the newest releases spell them."""
    return with_fallbacks(entry.fix_template)


def program_diff(case: Case, rep: Reproduction, code_only: bool = False) -> str:
    """Unified diff from the failing program to the fixed one (the "use instead").

    ``code_only`` leaves out the hunks that change only docstrings, comments or blank lines (a
    program's docstring says what it demonstrates, and differs between the two), so the first
    hunk shown is the first change of code.
    """
    failing = case.program_source(rep.failing).splitlines(keepends=True)
    fixed = case.program_source(rep.fixed).splitlines(keepends=True)
    if not code_only:
        return "".join(difflib.unified_diff(failing, fixed, fromfile=rep.failing, tofile=rep.fixed))
    old_code, new_code = code_lines("".join(failing)), code_lines("".join(fixed))
    hunks = []
    for group in difflib.SequenceMatcher(None, failing, fixed).get_grouped_opcodes(3):
        changed = [i for tag, i1, i2, _, _ in group if tag != "equal" for i in range(i1 + 1, i2 + 1)]
        added = [j for tag, _, _, j1, j2 in group if tag != "equal" for j in range(j1 + 1, j2 + 1)]
        if any(i in old_code for i in changed) or any(j in new_code for j in added):
            hunks.append(_hunk(group, failing, fixed))
    if not hunks:
        return ""
    return f"--- {rep.failing}\n+++ {rep.fixed}\n" + "".join(hunks)


def _hunk(group: list[tuple[str, int, int, int, int]], a: list[str], b: list[str]) -> str:
    """One hunk in unified-diff form (as :func:`difflib.unified_diff` writes it)."""
    first, last = group[0], group[-1]
    out = [f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"]
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            out += [" " + line for line in a[i1:i2]]
            continue
        out += ["-" + line for line in a[i1:i2]]
        out += ["+" + line for line in b[j1:j2]]
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def _range(start: int, stop: int) -> str:
    length = stop - start
    return f"{start + 1}" if length == 1 else f"{start if length == 0 else start + 1},{length}"


def code_lines(source: str) -> set[int]:
    """The 1-based line numbers holding code: not blank, not only a comment, not a docstring.

    A string that is a statement on its own (a docstring) counts as prose. When the source does
    not tokenize, every line counts as code (nothing is hidden).
    """
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set(range(1, source.count("\n") + 2))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
    code: set[int] = set()
    statement: list[tokenize.TokenInfo] = []
    for tok in tokens:
        if tok.type in skip:
            continue
        if tok.type != tokenize.NEWLINE:
            statement.append(tok)
            continue
        if statement and not all(t.type == tokenize.STRING for t in statement):
            for t in statement:
                code.update(range(t.start[0], t.end[0] + 1))
        statement = []
    for t in statement:  # a last statement without a NEWLINE token
        code.update(range(t.start[0], t.end[0] + 1))
    return code


def case_summary(case: Case) -> dict[str, Any]:
    return {
        "id": case.id,
        "slug": case.slug,
        "family": case.family,
        "title": case.title,
        "status": case.status,
        "hardware": list(case.hardware),
        "libraries": list(case.libraries),
        "summary": case.summary,
    }


def case_document(case: Case) -> dict[str, Any]:
    """The whole case as JSON-ready data (the `kb show --format json` schema)."""
    from kb.reproduce.ranges import verified_text
    from kb.reproduce.verification import verification

    status = verification(case)
    doc = case_summary(case)
    doc.update(
        {
            "path": str(case.path),
            "setting": case.setting,
            "versions": case.versions,
            "sources": list(case.sources),
            "family": case.family,
            "signatures": [s.document() for s in case.signatures],  # every field, as the index and the docs have it
            "fix": fix_text(case),
            "fix_snippet": case.fix_snippet.strip("\n"),
            "reproductions": [
                {
                    "name": r.name,
                    "description": r.description,
                    "hardware": list(r.hardware),
                    "launcher": r.launcher,
                    "nproc": r.nproc,
                    "failing": r.failing,
                    "fixed": r.fixed,
                    "timeout": r.timeout,
                    "requires": list(r.requires),
                    "pins": list(r.pins),
                    "fixed_pins": None if r.fixed_pins is None else list(r.fixed_pins),
                    "versions_run": pins_text(r),
                    "verified": verified_text(case, r),  # the range, and since which release it no longer fails
                }
                for r in case.reproductions
            ],
            "sections": case.sections,
            "observed": [
                {
                    key: run.get(key)
                    for key in (
                        "reproduction", "program", "profile", "emulated", "outcome", "passed",
                        "date", "gpu", "cpu", "versions", "explanation", "file",
                    )
                }
                for run in observed(case)
            ],
            # derived from the recorded runs, as on the docs page (kb/reproduce/verification.py)
            "verification": {k: getattr(status, k) for k in ("state", "title", "headline")},
        }
    )
    return doc


def family_summary(family: Family) -> dict[str, Any]:
    return {"name": family.name, "title": family.title, "summary": family.summary, "causes": len(family.triage)}


def family_document(family: Family, knowledge: Knowledge) -> dict[str, Any]:
    """The whole family as JSON-ready data (the `kb show FAMILY --format json` schema)."""
    by_slug = {c.slug: c for c in knowledge.cases}
    doc = family_summary(family)
    doc.update({
        "kind": "family",
        "path": family.file,
        "libraries": list(family.libraries),
        "triage": [
            {"cause": t.cause, "tell": t.tell, "fix": t.fix, "case": t.case or None,
             "case_id": by_slug[t.case].id if t.case in by_slug else None}
            for t in family.triage
        ],
        "fix": fix_text(family),
        "signatures": [s.document() for s in family.signatures],
        "cases": [{"id": c.id, "slug": c.slug, "title": c.title} for c in knowledge.family_cases(family)],
        "sources": list(family.sources),
        "sections": family.sections,
    })
    return doc
