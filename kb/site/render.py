"""Renderings of cases and families shared by the CLI (`kb show`, `kb list`) and the docs pages."""

from __future__ import annotations

import difflib
from typing import Any

from kb.knowledge.model import Case, Family, Knowledge, Reproduction
from kb.reproduce.evidence import observed


def program_diff(case: Case, rep: Reproduction) -> str:
    """Unified diff from the failing program to the fixed one (the "use instead")."""
    failing = case.program_source(rep.failing).splitlines(keepends=True)
    fixed = case.program_source(rep.fixed).splitlines(keepends=True)
    return "".join(difflib.unified_diff(failing, fixed, fromfile=rep.failing, tofile=rep.fixed))


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
            "fix_template": case.fix_template,
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
        "fix_template": family.fix_template,
        "signatures": [s.document() for s in family.signatures],
        "cases": [{"id": c.id, "slug": c.slug, "title": c.title} for c in knowledge.family_cases(family)],
        "sources": list(family.sources),
        "sections": family.sections,
    })
    return doc
