"""Find the knowledge files, load them all, check what refers to what, look entries up.

Cases live in ``cases/KB####-slug/case.md``, families in ``families/<name>.md``, generic meanings of
exception types in ``families/exception-types.toml`` (found by kb/knowledge/paths.py).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from kb.knowledge.paths import KnowledgeNotFound, cases_root, families_root
from kb.knowledge.load import EXCEPTION_TYPES_FILE, KnowledgeError, load_case, load_exception_types, load_family
from kb.knowledge.model import CASE_FILE, FAMILY_SUFFIX, Case, Family, Knowledge


def cases_dir() -> Path:
    """The ``cases/`` folder: ``$KB_CASES_DIR``, else the one beside the package."""
    return Path(cases_root())


def families_dir() -> Path:
    return Path(families_root())


def case_folders(root: Path | None = None) -> list[Path]:
    root = root or cases_dir()
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / CASE_FILE).is_file())


def family_files(root: Path | None = None) -> list[Path]:
    root = root or families_dir()
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.suffix == FAMILY_SUFFIX and p.is_file())


def check_references(cases: tuple[Case, ...], families: tuple[Family, ...]) -> None:
    """Every case names an existing family, and IDs and slugs are unique. (That every triage entry names an
    existing case is a tidy test, tests/test_registry.py: a cases folder of one's own, or a test's, holds
    fewer cases than the families name.)"""
    names = {f.name for f in families}
    slugs: dict[str, str] = {}
    ids: dict[str, str] = {}
    for case in cases:
        if case.id in ids:
            raise KnowledgeError(f"{case.file}: id {case.id} is also {ids[case.id]}'s")
        if case.slug in slugs:
            raise KnowledgeError(f"{case.file}: slug {case.slug} is also {slugs[case.slug]}'s")
        if case.slug in names:
            raise KnowledgeError(f"{case.file}: slug {case.slug} is a family's name")
        ids[case.id], slugs[case.slug] = case.id, case.id
        if names and case.family not in names:
            raise KnowledgeError(f"{case.file}: family {case.family!r} has no file in {families_dir()} "
                                 f"(families: {', '.join(sorted(names))})")


def load_all(case_root: Path, family_root: Path) -> tuple[tuple[Case, ...], tuple[Family, ...]]:
    """Every case and family under the two folders, loaded afresh and cross-checked."""
    cases, families = tuple(read_cases(case_root)), tuple(read_families(family_root))
    if not cases and not families:  # never answer "no known case" from an empty knowledge base
        raise KnowledgeNotFound(f"no cases in {case_root} and no families in {family_root}: kb has nothing to answer from")
    check_references(cases, families)
    return cases, families


def read_cases(root: Path | None = None) -> list[Case]:
    """Every case, loaded afresh (the site and the stage builder; no memo: files may have changed)."""
    return [load_case(folder) for folder in case_folders(root)]


def read_families(root: Path | None = None) -> list[Family]:
    """Every family, loaded afresh."""
    return [load_family(path) for path in family_files(root)]


def load_cases_leniently(problems: list[str]) -> list[Case]:
    """Every loadable case; a broken case.md is reported into ``problems``, not fatal (kb env: cases are
    edited live, and a pre-flight check should still run)."""
    cases = []
    for folder in case_folders():
        try:
            cases.append(load_case(folder))
        except KnowledgeError as exc:
            problems.append(f"case {folder.name}: {exc}")
    return cases


_load_all = lru_cache(maxsize=4)(load_all)  # the registry's memo (kb/knowledge/index.py loads afresh)


def _roots(root: Path | None) -> tuple[Path, Path]:
    return (root or cases_dir()).resolve(), families_dir().resolve()


def all_cases(root: Path | None = None) -> tuple[Case, ...]:
    """Every case, sorted by folder name (which starts with the ID)."""
    return _load_all(*_roots(root))[0]


def all_families() -> tuple[Family, ...]:
    """Every family, sorted by name."""
    return _load_all(*_roots(None))[1]


def exception_meanings() -> dict[str, str]:
    return load_exception_types(os.path.join(families_root(), EXCEPTION_TYPES_FILE))


def load_knowledge(root: Path | None = None) -> Knowledge:
    """Cases, families and exception meanings, fully loaded and checked (the slow path; see index.py)."""
    from kb.knowledge.tables import small_tables

    cases, families = _load_all(*_roots(root))
    return Knowledge(cases, families, exception_meanings(), small_tables())


class UnknownEntry(LookupError):
    pass


def find_case(key: str, root: Path | None = None) -> Case:
    """Look a case up by ID (``KB0001``, case-insensitive), slug or folder name."""
    wanted = key.strip()
    for case in all_cases(root):
        if wanted.upper() == case.id or wanted == case.slug or wanted == case.folder_name:
            return case
    raise UnknownEntry(f"no case with ID or slug {key!r} (try `kb list`)")


def find_entry(key: str) -> Case | Family:
    """A case (ID, slug, folder name) or a family (name)."""
    wanted = key.strip()
    for family in all_families():
        if wanted == family.name:
            return family
    try:
        return find_case(wanted)
    except UnknownEntry:
        raise UnknownEntry(f"no case or family {key!r} (try `kb list` and `kb list --families`)") from None
