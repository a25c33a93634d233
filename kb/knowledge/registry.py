"""Find case folders and look cases up by ID or slug."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from kb import cases_root

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # kb.knowledge.case parses TOML; `cases_dir` must stay cheap for diagnose's start-up
    from kb.knowledge.case import Case


def cases_dir() -> Path:
    """The ``cases/`` folder: ``$KB_CASES_DIR``, else the one beside the package."""
    return Path(cases_root())


def case_folders(root: Path | None = None) -> list[Path]:
    from kb.knowledge.case import CASE_FILE

    root = root or cases_dir()
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / CASE_FILE).is_file())


@lru_cache(maxsize=4)
def _load_all(root: Path) -> tuple[Case, ...]:
    from kb.knowledge.case import load_case

    return tuple(load_case(folder) for folder in case_folders(root))


def all_cases(root: Path | None = None) -> tuple[Case, ...]:
    """Every case, sorted by folder name (which starts with the ID)."""
    return _load_all((root or cases_dir()).resolve())


class UnknownCase(LookupError):
    pass


def find_case(key: str, root: Path | None = None) -> Case:
    """Look a case up by ID (``KB0001``, case-insensitive), slug or folder name."""
    wanted = key.strip()
    for case in all_cases(root):
        if wanted.upper() == case.id or wanted == case.slug or wanted == case.folder_name:
            return case
    raise UnknownCase(f"no case with ID or slug {key!r} (try `kb list`)")
