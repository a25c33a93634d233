"""Where the knowledge lives: one lookup, the same for a checkout, a wheel, a git-URL install and a notebook.

The knowledge root is a folder holding ``cases/``, ``families/``, ``examples/``, ``incidents/``,
``drift/`` and ``tables/``. It is found, in this order:

1. ``$KB_KNOWLEDGE_DIR``, when set (a knowledge base of one's own);
2. ``kb/_knowledge/`` inside the installed package: a wheel (and so ``pip install .``,
   ``pip install git+URL`` and a notebook's ``pip install``) carries the folders there
   (pyproject.toml, ``[tool.hatch.build.targets.wheel.force-include]``);
3. the folder that holds the ``kb`` package, when it has ``cases/`` and ``families/``:
   a checkout, or an editable install of one.

``$KB_CASES_DIR`` and ``$KB_FAMILIES_DIR`` still point one kind elsewhere (tests use them).
When no root is found every command says so on one line and exits 2
(:class:`KnowledgeNotFound`); kb never answers from an empty knowledge base.

Only the standard library, and no pathlib: `kb diagnose` calls this at start-up.
"""

from __future__ import annotations

import os

ROOT_ENV = "KB_KNOWLEDGE_DIR"
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../kb
SHIPPED_ROOT = os.path.join(PACKAGE_DIR, "_knowledge")  # what a wheel carries
CHECKOUT_ROOT = os.path.dirname(PACKAGE_DIR)  # the folder that holds kb/ (a checkout)
# The folders a knowledge root holds; the two without which kb has nothing to say come first.
REQUIRED = ("cases", "families")
FOLDERS = REQUIRED + ("examples", "incidents", "drift", "tables")


class KnowledgeNotFound(LookupError):
    """No knowledge root: neither $KB_KNOWLEDGE_DIR, nor the package's _knowledge/, nor a checkout."""


def _is_root(path: str) -> bool:
    return all(os.path.isdir(os.path.join(path, name)) for name in REQUIRED)


def knowledge_root() -> str:
    """The knowledge root (see the module docstring); raises :class:`KnowledgeNotFound` when there is none."""
    override = os.environ.get(ROOT_ENV)
    if override:
        if not _is_root(override):
            raise KnowledgeNotFound(f"${ROOT_ENV}={override} holds no cases/ and families/ folders")
        return override
    for candidate in (SHIPPED_ROOT, CHECKOUT_ROOT):
        if _is_root(candidate):
            return candidate
    raise KnowledgeNotFound(
        f"kb's knowledge (cases/, families/) is neither in {SHIPPED_ROOT} nor beside the package in "
        f"{CHECKOUT_ROOT}: reinstall kb-finetune, or set ${ROOT_ENV}"
    )


def folder(name: str) -> str:
    """One folder of the knowledge root (it may not exist: examples/ and drift/ are optional)."""
    if name not in FOLDERS:
        raise ValueError(f"no knowledge folder {name!r} (known: {', '.join(FOLDERS)})")
    return os.path.join(knowledge_root(), name)


def _override(name: str) -> str | None:
    value = os.environ.get(name)
    if value and not os.path.isdir(value):
        raise KnowledgeNotFound(f"${name}={value} is not a folder")
    return value or None


def cases_root() -> str:
    """The ``cases/`` folder: ``$KB_CASES_DIR``, else the knowledge root's."""
    return _override("KB_CASES_DIR") or folder("cases")


def families_root() -> str:
    """The ``families/`` folder: ``$KB_FAMILIES_DIR``, else the knowledge root's."""
    return _override("KB_FAMILIES_DIR") or folder("families")
