"""The version matrix page (``matrix.md``): case x library stack -> pass, fail or skip.

Generated from the cases' ``evidence/matrix.toml`` (written by `kb verify`, kb/reproduce/matrix.py),
never typed: a cell is what the stack's last run of the case's CPU reproductions did.
"""

from __future__ import annotations

from kb.knowledge.evidence import matrix_runs
from kb.knowledge.model import Case
from kb.knowledge.pins import pins_text
from kb.reproduce.matrix import LATEST, cell, counted, cpu_profile, figure, figure_on_any, load_stacks
from kb.site.case_page import CASES_DIR, page_path
from kb.site.markdown import md_escape

MATRIX_PAGE = "matrix.md"
SHOWN = {"pass": "pass", "fail": "**fail**", "skip": "skip", "does-not-fail": "does not fail"}


def _stack_versions(cases: list[Case], stack: str) -> str:
    for case in cases:
        for entry in matrix_runs(case):
            if entry.get("stack") == stack and entry.get("versions"):
                v = entry["versions"]
                return ", ".join(f"{k} {v[k]}" for k in ("python", "torch", "transformers", "peft", "trl",
                                                         "accelerate", "datasets") if k in v)
    return "not recorded yet"


def matrix_page(cases: list[Case]) -> str:
    stacks = load_stacks()
    names = [n for n in stacks if n != LATEST or any(e.get("stack") == LATEST for c in cases for e in matrix_runs(c))]
    rows = [c for c in cases if counted(c)]
    passing, total = figure(cases)
    on_two, _ = figure_on_any(cases, 2)
    out = [
        "---", "title: Version matrix", "description: Which cases reproduce on which library stacks (kb verify)", "---",
        "", "# Version matrix", "",
        "Each case's CPU reproductions run on named library stacks (`tables/stacks.toml`) by `kb verify --stack NAME`; "
        "a cell says what the stack's last run did: **pass** (the failing program failed as documented and the fixed "
        "one worked, for every reproduction), **fail**, **skip** (a reproduction cannot run there: the reason is "
        "below) or **does not fail** (the failing program completes there: on a release above every one it failed on, a release fixed it). Cases whose only CPU "
        "reproductions are pinned run their own versions and are left out of the table; the pinned reproductions "
        "are listed below it. How to run it: "
        "[contributing](contributing.md#the-version-matrix).",
        "",
        f"**{passing} of {total} cases pass both programs of every reproduction on the `lowest` and `newest` stacks; "
        f"{on_two} of {total} on at least two stacks.**",
        "",
        "| stack | versions |", "| --- | --- |",
    ]
    out += [f"| `{n}` | {md_escape(_stack_versions(cases, n))} |" for n in names]
    out += ["", "| case | " + " | ".join(f"`{n}`" for n in names) + " |", "| --- |" + " --- |" * len(names)]
    notes = []
    for case in rows:
        cells = []
        for name in names:
            status, note = cell(case, name)
            cells.append(SHOWN.get(status, status))
            if status != "pass":
                notes.append(f"- {case.id} on `{name}` ({status}): {md_escape(note[:400])}")
        link = f"[{case.id}]({page_path(case)}) {md_escape(case.slug)}"
        out.append(f"| {link} | " + " | ".join(cells) + " |")
    if notes:
        out += ["", "## Not passing, and why", "", *notes]
    out += pinned_section(cases, names)
    return "\n".join(out) + "\n"


def pinned_section(cases: list[Case], names: list[str]) -> list[str]:
    """The pinned CPU reproductions: which versions each program runs with (the one wording of
    kb/knowledge/pins.py) and what each stack's run of them did (their pins shadow the stack's releases)."""
    lines = []
    for case in cases:
        for rep in case.reproductions:
            if case.status == "retired" or not rep.pinned or cpu_profile(rep) is None:
                continue
            runs = {e.get("stack"): e for e in matrix_runs(case) if e.get("reproduction") == rep.name}
            statuses = ", ".join(f"`{n}` {SHOWN.get(str(runs[n].get('status')), runs[n].get('status'))}"
                                 for n in names if n in runs) or "not run by kb verify yet"
            lines.append(f"- [{case.id}]({page_path(case)}) `{rep.name}`: {pins_text(rep, quote='`')}. {statuses}")
    if not lines:
        return []
    return ["", "## Pinned reproductions", "",
            "Not counted above: their pins shadow the stack's releases of those libraries (the rest are the stack's). "
            "Each case page lists the versions each run used.", "", *lines]


__all__ = ["MATRIX_PAGE", "CASES_DIR", "matrix_page"]
