"""The ``versions`` rule: what a reproduction says it needs (``requires_versions``) against its evidence.

A run that passed is evidence that the programs work on its versions, so it must lie inside the
declared range; a matrix entry (evidence/matrix.toml, `kb verify`) that ran outside the range should
have been skipped. The range itself must parse and name a library a run records.
"""

from __future__ import annotations

from kb.knowledge.evidence import EVIDENCE_DIR, MATRIX_FILE, matrix_runs
from kb.knowledge.model import Case, KnowledgeError
from kb.reproduce.matrix import STATUSES
from kb.reproduce.ranges import passing_runs, spec_problems, version_problem
from kb.tidy.problem import Problem

ENTRY_KEYS = ("stack", "reproduction", "profile", "status", "date")


def range_problems(case: Case) -> list[Problem]:
    out: list[Problem] = []
    matrix = str(case.path / EVIDENCE_DIR / MATRIX_FILE)
    try:
        entries = matrix_runs(case)
    except KnowledgeError as exc:
        return [Problem(matrix, "versions", str(exc))]
    names = {rep.name for rep in case.reproductions}
    for i, entry in enumerate(entries):
        missing = [k for k in ENTRY_KEYS if k not in entry]
        if missing:
            out.append(Problem(matrix, "versions", f"runs[{i}] lacks {', '.join(missing)} (written by kb verify, not by hand)"))
        elif entry["reproduction"] not in names:
            out.append(Problem(matrix, "versions", f"runs[{i}] ({entry['stack']}) names no reproduction of {case.id}: "
                                                   f"{entry['reproduction']!r}"))
        elif entry["status"] not in STATUSES:
            out.append(Problem(matrix, "versions", f"runs[{i}] has status {entry['status']!r} (one of {', '.join(STATUSES)})"))
    for rep in case.reproductions:
        where = f"reproduction {rep.name!r}"
        specs = spec_problems(rep)
        out += [Problem(case.file, "versions", f"{where}: {m}") for m in specs]
        if specs or not rep.requires_versions:
            continue
        for run in passing_runs(case, rep):
            reason = version_problem(rep, run["versions"], rep.pins_for(run["program"] or "failing"))
            if reason:
                out.append(Problem(case.file, "versions", f"{where}: {run['source']} passed outside requires_versions "
                                                          f"({reason}): widen the range, or record the runs again"))
        for entry in entries:
            if entry.get("reproduction") == rep.name and entry.get("status") in ("pass", "fail", "does-not-fail"):
                reason = version_problem(rep, entry.get("versions") or {})
                if reason:
                    out.append(Problem(matrix, "versions", f"{where} ran on stack {entry.get('stack')} outside its "
                                                           f"requires_versions ({reason}): kb verify skips it there now"))
    return out
