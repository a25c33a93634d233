"""A family's page (``families/<name>.md`` in the site): the triage first, then the generic fix,
the cases, what the error means, and every wording kb recognises."""

from __future__ import annotations

from kb.knowledge.model import Case, Family
from kb.site.markdown import breakable, fence, front_matter, md_escape, source_line
from kb.site.render import fix_text
from kb.site.wording import readable

FAMILIES_DIR = "families"
# Below a case page's boost (kb/site/case_page.py): a family page lists every wording of its kind of
# error, so it matches most pasted errors; the case that explains one should come first.
FAMILY_SEARCH_BOOST = 2


def family_page_path(name: str) -> str:
    return f"{FAMILIES_DIR}/{name}.md"


def family_link(name: str, from_dir: str) -> str:
    """A Markdown link to a family page from a page in ``from_dir`` (``cases``, ``families`` or the root)."""
    target = f"{name}.md" if from_dir == FAMILIES_DIR else f"../{family_page_path(name)}" if from_dir else family_page_path(name)
    return f"[{name}]({target})"


def family_page(family: Family, cases: list[Case]) -> str:
    by_slug = {c.slug: c for c in cases}
    parts = [
        front_matter({"title": f"{family.name}: {family.title}", "description": family.summary.strip(),
                       "search": {"boost": FAMILY_SEARCH_BOOST}}),
        f"# {breakable(md_escape(family.title))}",
        "",
        f"Failure family `{family.name}` · {md_escape(family.summary.strip())}",
        "",
        "## Triage: most common cause first",
        "",
    ]
    for i, t in enumerate(family.triage, start=1):
        case = by_slug.get(t.case)
        link = f" → [{case.id} {case.slug}](../cases/{case.folder_name}.md)" if case else ""
        parts += [f"{i}. **{md_escape(t.cause)}**{link}", "", f"    *How to tell:* {t.tell.strip()}", ""]
        if t.fix:
            parts += [f"    *Fix:* {t.fix.strip()}", ""]
    parts += ["## Generic fix", "", fence(fix_text(family).strip()), ""]
    family_cases = [c for c in cases if c.family == family.name]
    parts += ["## Cases in this family", ""]
    parts += [f"- [{c.id}](../cases/{c.folder_name}.md) {md_escape(c.title)}" for c in family_cases] or ["_None yet._"]
    parts.append("")
    for heading, body in family.sections.items():
        parts += [f"## {heading}", "", body.strip(), ""]
    parts += ["## Every wording kb recognises", "",
              "`kb diagnose` answers with this family when an error matches one of these and no case's evidence "
              "singles out one cause.", ""]
    regexes = []
    for s in family.signatures:
        types = ", ".join(s.exceptions) or "any type"
        # A heading each: the site's search ranks a match in a heading far above one in running text,
        # so a pasted error finds the wording it matches (h4: below mkdocs.yml's toc_depth, out of the TOC).
        parts += [f"#### {breakable(md_escape(readable(s.raw['message'])))}", "", f"{md_escape(types)} · `{s.name}`", ""]
        regexes += [f"{s.name}:", f"  {s.raw['message']}"]
    if family.signatures:
        parts += ["`…` stands for a value from your error (a size, a name, a path) or any text.", "",
                  '??? note "The regexes `kb diagnose` matches"', "", _indent(fence("\n".join(regexes))), ""]
    if family.sources:
        parts += ["## Sources", ""] + [source_line(s, FAMILIES_DIR) for s in family.sources] + [""]
    return "\n".join(parts).rstrip() + "\n"


def _indent(text: str) -> str:
    return "\n".join(("    " + line) if line else "" for line in text.splitlines())


def families_index(families: list[Family]) -> str:
    rows = ["# Failure families", "", "Every error kb recognises belongs to one of these kinds of failure.", "",
            "| family | what it is | causes |", "| --- | --- | --- |"]
    rows += [f"| [{f.name}]({f.name}.md) | {md_escape(f.title)} | {len(f.triage)} |" for f in families]
    return "\n".join(rows) + "\n"
