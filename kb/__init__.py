"""kb: a troubleshooting knowledge base of LLM fine-tuning failures that prove themselves."""

import os

__version__ = "0.1.0"


def cases_root() -> str:
    """The ``cases/`` folder: ``$KB_CASES_DIR``, else the one beside the package (no pathlib: cheap)."""
    return os.environ.get("KB_CASES_DIR") or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cases")
