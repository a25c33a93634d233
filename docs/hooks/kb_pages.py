"""MkDocs hook: generate a page per case, the index pages and the home page's tables at build time.

The pages come from ``cases/`` through :mod:`kb.site.build`; nothing generated is
written to ``docs/`` or committed. Registered in ``mkdocs.yml`` under ``hooks:``.
Builders that run no hooks (Zensical) use ``python -m kb.site.build stage OUT`` instead.
"""

from __future__ import annotations

from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from pathlib import Path

from kb.site import build, paste_page
from kb.knowledge.model import Case
from kb.knowledge.registry import cases_dir, read_cases

# Loaded afresh in on_config for every build, so `mkdocs serve` sees edited cases.
_cases: tuple[Case, ...] = ()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _cases
    _cases = tuple(read_cases())
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages and the paste/ page's runtime, then complete the nav (every case; pages mkdocs.yml misses)."""
    for path, text in build.site_pages(_cases).items():
        if files.get_file_from_path(path) is not None:  # a hand-written page would be shadowed silently
            raise ValueError(f"docs/{path} would be overwritten by a generated page: remove it")
        files.append(File.generated(config, path, content=text))
    # the paste/ page's runtime: Pyodide and kb's wheel, served by the site (kb/site/paste_page.py)
    for path, source in paste_page.runtime_or_none(Path(config.config_file_path).resolve().parent).items():
        files.append(File.generated(config, path, abs_src_path=str(source)))
    pages = [f.src_uri for f in files.documentation_pages()]
    config.nav = build.full_nav(config.nav, _cases, pages)
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Fill ``<!-- kb:NAME -->`` markers in hand-written pages (the home page's counts and incidents)."""
    return build.fill_markers(markdown, _cases, [f.src_uri for f in files.documentation_pages()])


def on_serve(server: Any, config: MkDocsConfig, builder: Any) -> Any:
    """`mkdocs serve` rebuilds when a case folder changes, not only docs/."""
    server.watch(str(cases_dir()))
    return server
