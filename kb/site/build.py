"""The whole generated site: every page, the nav, the home page's markers, and a staged tree.

Nothing here is written to ``docs/``: the mkdocs hook (``docs/hooks/kb_pages.py``) calls
:func:`site_pages` and hands the text to mkdocs as generated files, so a page always shows the
current case and family files. Builders that run no hooks (Zensical) use
``python -m kb.site.build stage OUT``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from kb.knowledge.model import Case
from kb.knowledge.evidence import observed
from kb.site.family_page import FAMILIES_DIR, families_index, family_page, family_page_path
from kb.site.frequency_page import FREQUENCY_PAGE, knowledge_frequency_page
from kb.reproduce.verification import verification


from kb.site.case_page import CASES_DIR, case_page, page_path
from kb.site.incident_page import incident_pages
from kb.site.markdown import INCIDENTS_DIR
from kb.site.indexes import cases_index, errors_index, hardware_index, home_inserts, libraries_index


def site_pages(cases: Iterable[Case]) -> dict[str, str]:
    """Every generated page: ``{path inside docs: markdown}``."""
    cases = list(cases)
    runs = {c.id: observed(c) for c in cases}
    statuses = {c.id: verification(c, runs[c.id]) for c in cases}
    known = {c.id: c.folder_name for c in cases}
    pages = {page_path(c): case_page(c, runs[c.id], known) for c in cases}
    pages[f"{CASES_DIR}/index.md"] = cases_index(cases, statuses)
    pages["errors.md"] = errors_index(cases)
    pages["libraries.md"] = libraries_index(cases)
    pages["hardware.md"] = hardware_index(cases, statuses)
    from kb.site.matrix_page import MATRIX_PAGE, matrix_page

    pages[MATRIX_PAGE] = matrix_page(cases)  # case x library stack (kb verify's evidence/matrix.toml)
    families = _families()
    for family in families:
        pages[family_page_path(family.name)] = family_page(family, cases)
    if families:
        pages[f"{FAMILIES_DIR}/index.md"] = families_index(families)
    pages.update(incident_pages(cases, families))
    pages[FREQUENCY_PAGE] = knowledge_frequency_page(f.name for f in families)
    return pages


def _families() -> list:
    """Every family file, loaded (the site shows the families beside whatever cases it is given)."""
    from kb.knowledge.registry import read_families

    return read_families()



# --- assembling the site (shared by the mkdocs hook and `python -m kb.site.build stage`) --------

MARKER = "<!-- kb:{} -->"
DIAGNOSE_PAGE = "diagnose.md"  # written separately; listed in the nav when present


def fill_markers(markdown: str, cases: Iterable[Case], pages: Iterable[str]) -> str:
    """Replace ``<!-- kb:NAME -->`` markers in a hand-written page (the home page's tables)."""
    if "<!-- kb:" not in markdown:
        return markdown
    inserts = home_inserts(cases)
    inserts["diagnose-link"] = f"More: [Diagnose an error]({DIAGNOSE_PAGE})." if DIAGNOSE_PAGE in set(pages) else ""
    for name, text in inserts.items():
        markdown = markdown.replace(MARKER.format(name), text)
    return markdown


def nav_paths(nav: Any) -> set[str]:
    """Every page path a nav (nested lists and dicts, as in mkdocs.yml) refers to."""
    if isinstance(nav, str):
        return {nav}
    items = nav.values() if isinstance(nav, dict) else nav if isinstance(nav, list) else ()
    return set().union(set(), *(nav_paths(v) for v in items))


def full_nav(nav: list[Any] | None, cases: Iterable[Case], pages: Iterable[str]) -> list[Any]:
    """mkdocs.yml's nav with "Cases" filled with every case, and every page it misses added.

    ``pages`` are all documentation pages (hand-written and generated). A hand-written page
    the nav does not list (``diagnose.md``, guides other people add) joins it, so a new page
    never trips the strict build's "not included in the nav" check.
    """
    nav = [dict(i) if isinstance(i, dict) else i for i in (nav or [])]
    entries: list[Any] = [{"All cases": f"{CASES_DIR}/index.md"}]
    entries += [{f"{c.id} {c.slug}": page_path(c)} for c in cases]
    for item in nav:
        if isinstance(item, dict) and "Cases" in item:
            item["Cases"] = entries
            break
    else:
        nav.append({"Cases": entries})
    family_pages = sorted(p for p in pages if p.startswith(f"{FAMILIES_DIR}/") and p != f"{FAMILIES_DIR}/index.md")
    if family_pages:
        nav.append({"Families": [{"All families": f"{FAMILIES_DIR}/index.md"}]
                    + [{p[len(FAMILIES_DIR) + 1:-3]: p} for p in family_pages]})
    incident_pages = sorted(p for p in pages if p.startswith(f"{INCIDENTS_DIR}/") and p != f"{INCIDENTS_DIR}/index.md")
    if incident_pages:
        nav.append({"Incidents": [{"All incidents": f"{INCIDENTS_DIR}/index.md"}]
                    + [{p[len(INCIDENTS_DIR) + 1:-3]: p} for p in incident_pages]})
    listed = nav_paths(nav)
    extra = [p for p in pages if p not in listed]
    if DIAGNOSE_PAGE in extra:
        extra.remove(DIAGNOSE_PAGE)
        nav.insert(1, {"Diagnose an error": DIAGNOSE_PAGE})
    if extra:
        nav.append({"Guides": sorted(extra)})
    return nav


def stage(repo: Path, out: Path, cases: Iterable[Case]) -> Path:
    """Write a complete docs tree and a hook-free ``mkdocs.yml`` under ``out``; return the config path.

    For builders that read ``mkdocs.yml`` but run no MkDocs hooks (Zensical): the generated
    pages are written into a copy of ``docs/`` and the site goes to ``out/site`` (``out`` is
    scratch space, never committed).
    """
    import shutil

    import yaml  # a dependency of mkdocs and of zensical

    cases = list(cases)
    config = yaml.safe_load((repo / "mkdocs.yml").read_text(encoding="utf-8"))
    docs = out / "docs"
    if docs.exists():
        shutil.rmtree(docs)
    shutil.copytree(repo / config.get("docs_dir", "docs"), docs, ignore=shutil.ignore_patterns("hooks"))
    generated = site_pages(cases)
    pages = sorted({p.relative_to(docs).as_posix() for p in docs.rglob("*.md")} | set(generated))
    for path in docs.rglob("*.md"):
        path.write_text(fill_markers(path.read_text(encoding="utf-8"), cases, pages), encoding="utf-8")
    for rel, text in generated.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    from kb.site.paste_page import copy_runtime

    copy_runtime(repo, docs)  # the paste/ page's Pyodide and kb's wheel (none where npm is missing)
    config.pop("hooks", None)
    config.pop("exclude_docs", None)
    config["docs_dir"] = "docs"  # relative to the staged mkdocs.yml: Zensical wants both inside its folder
    config["site_dir"] = "site"
    config["nav"] = full_nav(config.get("nav"), cases, pages)
    path = out / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m kb.site.build stage OUT``: see :func:`stage`."""
    import argparse

    from kb.knowledge.registry import read_cases

    parser = argparse.ArgumentParser(prog="python -m kb.site.build")
    parser.add_argument("command", choices=["stage"])
    parser.add_argument("out", type=Path, help="scratch folder for the docs tree and mkdocs.yml")
    ns = parser.parse_args(argv)
    repo = Path(__file__).resolve().parent.parent.parent
    config = stage(repo, ns.out, read_cases())
    print(config)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
