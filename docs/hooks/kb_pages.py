"""MkDocs hook: generate a page per case, the index pages and the home page's tables at build time.

The pages come from ``cases/`` through :mod:`kb.docs_pages`; nothing generated is
written to ``docs/`` or committed. Registered in ``mkdocs.yml`` under ``hooks:``.
"""

from __future__ import annotations

from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from kb import docs_pages
from kb.case import Case, load_case
from kb.registry import case_folders, cases_dir

MARKER = "<!-- kb:{} -->"
DIAGNOSE_PAGE = "diagnose.md"

# Loaded afresh in on_config for every build, so `mkdocs serve` sees edited cases.
_cases: tuple[Case, ...] = ()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Load the cases; add one nav entry per case under "Cases" (mkdocs.yml lists only fixed pages)."""
    global _cases
    _cases = tuple(load_case(folder) for folder in case_folders())
    entries: list[Any] = [{"All cases": f"{docs_pages.CASES_DIR}/index.md"}]
    entries += [{f"{c.id} {c.slug}": docs_pages.page_path(c)} for c in _cases]
    nav = config.nav or []
    for item in nav:
        if isinstance(item, dict) and "Cases" in item:
            item["Cases"] = entries
            break
    else:
        nav.append({"Cases": entries})
    config.nav = nav
    return config


def _nav_paths(nav: Any) -> set[str]:
    """Every page path a nav (nested lists and dicts) refers to."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, dict):
        return set().union(*(_nav_paths(v) for v in nav.values())) if nav else set()
    if isinstance(nav, list):
        return set().union(*(_nav_paths(v) for v in nav)) if nav else set()
    return set()


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path, text in docs_pages.site_pages(_cases).items():
        existing = files.get_file_from_path(path)
        if existing is not None:  # a hand-written page with the same path would be shadowed silently
            raise ValueError(f"docs/{path} would be overwritten by a generated page: remove it")
        files.append(File.generated(config, path, content=text))
    # Hand-written pages that mkdocs.yml does not list (docs/diagnose.md and the guides other
    # people add) join the nav, so a new page never breaks the strict build's nav check.
    listed = _nav_paths(config.nav)
    extra = [f.src_uri for f in files.documentation_pages() if f.src_uri not in listed]
    if DIAGNOSE_PAGE in extra:
        extra.remove(DIAGNOSE_PAGE)
        config.nav.insert(1, {"Diagnose an error": DIAGNOSE_PAGE})
    if extra:
        config.nav.append({"Guides": sorted(extra)})
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Fill ``<!-- kb:NAME -->`` markers in hand-written pages (the home page's counts and incidents)."""
    if "<!-- kb:" not in markdown:
        return markdown
    inserts = docs_pages.home_inserts(_cases)
    has_diagnose = files.get_file_from_path(DIAGNOSE_PAGE) is not None
    inserts["diagnose-link"] = f"More: [Diagnose an error]({DIAGNOSE_PAGE})." if has_diagnose else ""
    for name, text in inserts.items():
        markdown = markdown.replace(MARKER.format(name), text)
    return markdown


def on_serve(server: Any, config: MkDocsConfig, builder: Any) -> Any:
    """`mkdocs serve` rebuilds when a case folder changes, not only docs/."""
    server.watch(str(cases_dir()))
    return server
