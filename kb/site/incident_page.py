"""An incident's page (``incidents/<name>.md`` in the site): the report the cases came from, as a story.

The stories are data: ``incidents/<name>.toml`` beside ``cases/`` (the setting, the attempts in
order with the case reproducing each, how it ended), written in the project's words from the report
``../shared/incidents/<name>.md``. Every report a case cites gets a page; a report without a story
file gets a short page that lists its cases, so a case's source link never breaks.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from kb.knowledge.incidents import incidents_dir, stories  # noqa: F401 - read there, rendered here
from kb.knowledge.model import Case, Family
from kb.site.markdown import INCIDENTS_DIR, front_matter, incident_name, md_escape

def incident_page_path(name: str) -> str:
    return f"{INCIDENTS_DIR}/{name}.md"


def cited_incidents(cases: Iterable[Case]) -> dict[str, list[Case]]:
    """The incident reports the cases cite, each with the cases that cite it (in case order)."""
    by_name: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        for src in case.sources:
            name = incident_name(src.get("url", ""))
            if name is not None and case not in by_name[name]:
                by_name[name].append(case)
    return dict(by_name)


def _case_link(case_id: str, by_id: dict[str, Case]) -> str:
    case = by_id.get(case_id)
    if case is None:  # a case outside this site (the docs tests build a site of synthetic cases)
        return f"{case_id}"
    return f"[{case.id} {case.slug}](../cases/{case.folder_name}.md)"


def incident_page(name: str, story: dict[str, Any] | None, citing: list[Case], all_cases: Iterable[Case]) -> str:
    by_id = {c.id: c for c in all_cases}
    title = story["title"] if story else f"Incident report {name}"
    parts = [front_matter({"title": f"Incident: {title}", "description": story["summary"].strip() if story else title}),
             f"# {md_escape(title)}", ""]
    if story is None:
        parts += ["_No story has been written for this report yet (`incidents/" + name + ".toml`)._", ""]
    else:
        parts += [story["summary"].strip(), "", "## The setting", "", story["setting"].strip(), "",
                  "## The attempts, in order", ""]
        for i, attempt in enumerate(story["attempts"], start=1):
            mark = " **It worked.**" if attempt.get("worked") else ""
            links = ", ".join(_case_link(c, by_id) for c in attempt["cases"])
            parts += [f"{i}. **Tried:** {attempt['tried'].strip()}{mark}", "",
                      f"    **What it hit:** {attempt['hit'].strip()}", "",
                      f"    **Reproduced in:** {links}", ""]
        parts += ["## How it ended", "", story["ending"].strip(), ""]
    named = {c for a in (story or {}).get("attempts", []) for c in a["cases"]}
    listed = list(citing) + [by_id[c] for c in sorted(named) if c in by_id and by_id[c] not in citing]
    parts += ["## Every case from this report", "", "| case | error | in the story |", "| --- | --- | --- |"]
    for case in listed:
        where = ", ".join(str(i) for i, a in enumerate((story or {}).get("attempts", []), start=1) if case.id in a["cases"])
        parts.append(f"| {_case_link(case.id, by_id)} | {md_escape(case.title)} | "
                     f"{'attempt ' + where if where else 'also cites this report'} |")
    parts += ["", f"Told from the incident report `{name}.md`, kept with the project's incident reports (not "
              "published here); the cases link to this page as their source.", ""]
    return "\n".join(parts)


def incident_pages(cases: Iterable[Case], families: Iterable[Family] = ()) -> dict[str, str]:
    """A page per report a case or family cites and per story, and the index: ``{path inside docs: markdown}``."""
    cases = list(cases)
    cited = cited_incidents(cases)
    told = stories()
    by_families = {name for f in families for name in (incident_name(s.get("url", "")) for s in f.sources) if name}
    names = sorted(set(cited) | set(told) | by_families)
    if not names:
        return {}
    pages = {incident_page_path(n): incident_page(n, told.get(n), cited.get(n, []), cases) for n in names}
    rows = [front_matter({"title": "Incidents"}), "# Incidents", "",
            "The incident reports this knowledge base started from, each told as what was tried, in order, "
            "and which case reproduces each failure.", "", "| incident | what happened | cases |", "| --- | --- | --- |"]
    for n in names:
        story = told.get(n)
        ids = sorted({c.id for c in cited.get(n, [])} | {c for a in (story or {}).get("attempts", []) for c in a["cases"]})
        summary = md_escape(story["summary"].strip()) if story else "_no story yet_"
        rows.append(f"| [{md_escape(story['title'] if story else n)}]({n}.md) | {summary} | {len(ids)} |")
    pages[f"{INCIDENTS_DIR}/index.md"] = "\n".join(rows) + "\n"
    return pages
