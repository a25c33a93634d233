"""kb: a troubleshooting knowledge base of LLM fine-tuning failures that prove themselves."""

import os

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
