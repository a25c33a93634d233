"""kb: a troubleshooting knowledge base of LLM fine-tuning failures that prove themselves."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from kb.notebook import DiagnosisResult

__version__ = "0.1.0"


# The folder that holds the package: a checkout, or site-packages. Subprocesses get it on PYTHONPATH.
# The knowledge is found through kb/knowledge/paths.py, not from here.
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Where the docs site is published (mkdocs.yml's site_url; a test keeps them equal).
SITE_URL = "https://kb-finetune.github.io/kb/"


def site_url() -> str:
    """The docs site's address, ending in "/": ``$KB_SITE_URL`` (a mirror, a local build), else SITE_URL."""
    url = os.environ.get("KB_SITE_URL") or SITE_URL
    return url if url.endswith("/") else url + "/"


# -- for code and notebooks (docs/notebooks.md). Each imports its module only when called: importing kb stays
# as cheap as it is for `kb diagnose`, and a session that never loads the extension pays nothing.

def load_ipython_extension(ipython: object) -> None:
    """``%load_ext kb``: show kb's diagnosis under the traceback of a failing cell (kb/notebook/extension.py)."""
    from kb.notebook import load

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """``%unload_ext kb``: remove the handler ``%load_ext kb`` installed."""
    from kb.notebook import unload

    unload(ipython)


def diagnose_text(text: str | bytes, *, width: int = 80) -> DiagnosisResult:
    """Diagnose error output (a traceback, a log) as `kb diagnose` does; a DiagnosisResult with ``.document``
    (the JSON document), ``.text`` (the one-screen text), ``.top`` (the top answer's id or None) and HTML for
    Jupyter. Raises ValueError for input kb cannot use (empty, binary)."""
    from kb.notebook import diagnose_text as diagnose

    return diagnose(text, width=width)


def diagnose_exception(exc: BaseException, *, width: int = 80) -> DiagnosisResult:
    """Diagnose an exception from its traceback as Python prints it (chained exceptions too); see diagnose_text."""
    from kb.notebook import diagnose_exception as diagnose

    return diagnose(exc, width=width)
