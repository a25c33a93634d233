"""kb: a troubleshooting knowledge base of LLM fine-tuning failures that prove themselves."""

import os

__version__ = "0.1.0"


# The checkout (or install prefix) that holds the package and, beside it, the knowledge folders.
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cases_root() -> str:
    """The ``cases/`` folder: ``$KB_CASES_DIR``, else the one beside the package (no pathlib: cheap)."""
    return os.environ.get("KB_CASES_DIR") or os.path.join(REPO_ROOT, "cases")


def families_root() -> str:
    """The ``families/`` folder: ``$KB_FAMILIES_DIR``, else the one beside the package."""
    return os.environ.get("KB_FAMILIES_DIR") or os.path.join(REPO_ROOT, "families")


# Where the docs site is published (mkdocs.yml's site_url; a test keeps them equal).
SITE_URL = "https://kb-finetune.github.io/kb/"


def site_url() -> str:
    """The docs site's address, ending in "/": ``$KB_SITE_URL`` (a mirror, a local build), else SITE_URL."""
    url = os.environ.get("KB_SITE_URL") or SITE_URL
    return url if url.endswith("/") else url + "/"
