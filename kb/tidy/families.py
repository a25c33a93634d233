"""The rules about a family: its triage names existing cases, and the site's page for it holds its triage and prose.

A family without triage entries or without its ``## What it means`` prose does not load at all
(kb/knowledge/load.py): `kb check` reports the loader's message under ``schema``.
"""

from __future__ import annotations

from kb.knowledge.model import Case, Family
from kb.site.family_page import family_page, family_page_path
from kb.tidy.problem import Problem
from kb.tidy.snippets import fix_code_problems
from kb.tidy.templates import template_problems


def family_problems(family: Family, cases: list[Case], unloaded: frozenset[str] | set[str] = frozenset()) -> list[Problem]:
    """``unloaded``: slugs of case folders that did not load (a triage entry naming one is not reported)."""
    out = []
    if not family.triage:
        out.append("triage lists no cause")
    slugs = {c.slug for c in cases} | set(unloaded)
    for i, entry in enumerate(family.triage):
        if entry.case and entry.case not in slugs:
            out.append(f"triage[{i}].case {entry.case!r} names no case")
        for name in entry.signatures:
            if name not in {s.name for s in family.signatures}:
                out.append(f"triage[{i}].signatures names {name!r}, which is not a signature of the family")
    page = family_page(family, cases)
    where = f"the site's page {family_page_path(family.name)}"
    if family.triage and "## Triage" not in page:
        out.append(f"{where} lacks the triage")
    if not family.sections:
        out.append(f"{where} has no prose (## What it means)")
    for heading, body in family.sections.items():
        if f"## {heading}" not in page or body.strip() not in page:
            out.append(f"{where} lacks its section ## {heading}")
    return ([Problem(family.file, "family", m) for m in out]
            + [Problem(family.file, "snippet", m) for m in fix_code_problems(family)]
            + [Problem(family.file, "template", m) for m in template_problems(family)])
