"""Load every case and family one by one, keeping each failure as a problem instead of stopping at the first.

kb/knowledge/registry.py stops at the first file that does not load (every other command needs all of
them); `kb check` reports each and goes on checking what did load.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from kb.knowledge.load import EXCEPTION_TYPES_FILE, load_case, load_exception_types, load_family
from kb.knowledge.model import CASE_FILE, Case, Family, Knowledge, KnowledgeError
from kb.knowledge.registry import case_folders, family_files
from kb.tidy.problem import Problem


@dataclass
class Loaded:
    """What loaded, and a ``schema`` problem for each file that did not."""

    cases: list[Case] = field(default_factory=list)
    families: list[Family] = field(default_factory=list)
    meanings: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)  # every case folder, loaded or not
    # ids, slugs and family names of the files that did not load: what refers to them is not reported
    # again (their schema problem says what to fix)
    unloaded: set[str] = field(default_factory=set)

    def knowledge(self) -> Knowledge:
        return Knowledge(tuple(self.cases), tuple(self.families), self.meanings)


def _problem(path: str, exc: KnowledgeError) -> Problem:
    """The loader's message names the file first; the problem carries it as its path."""
    text = str(exc)
    if text.startswith(path + ": "):
        text = text[len(path) + 2:]
    elif text.startswith(path + "."):  # a schema error: "<file>.signatures[0]: unknown key 'hintz'"
        text = text[len(path) + 1:]
    return Problem(path, "schema", text)


def load(cases_root: Path, families_root: Path) -> Loaded:
    loaded = Loaded(folders=case_folders(cases_root))
    for folder in loaded.folders:
        try:
            loaded.cases.append(load_case(folder))
        except KnowledgeError as exc:
            loaded.problems.append(_problem(os.path.join(folder, CASE_FILE), exc))
            loaded.unloaded.update(folder.name.split("-", 1))
    files = family_files(families_root)
    for path in files:
        try:
            loaded.families.append(load_family(path))
        except KnowledgeError as exc:
            loaded.problems.append(_problem(str(path), exc))
            loaded.unloaded.add(path.stem)
    meanings = os.path.join(families_root, EXCEPTION_TYPES_FILE)
    try:
        loaded.meanings = load_exception_types(meanings)
    except KnowledgeError as exc:
        loaded.problems.append(_problem(meanings, exc))
    loaded.problems += references(loaded.cases, {p.stem for p in files}, families_root)
    return loaded


def references(cases: list[Case], names: set[str], families_root: Path) -> list[Problem]:
    """What kb/knowledge/registry.py's check_references stops at, each reported: a shared id or slug, a
    slug that is a family's name, a family without a file (``names``: the family files' names)."""
    problems = []
    ids: dict[str, str] = {}
    slugs: dict[str, str] = {}
    for case in cases:
        if case.id in ids:
            problems.append(Problem(case.file, "schema", f"id {case.id} is also {ids[case.id]}'s"))
        if case.slug in slugs:
            problems.append(Problem(case.file, "schema", f"slug {case.slug} is also {slugs[case.slug]}'s"))
        if case.slug in names:
            problems.append(Problem(case.file, "schema", f"slug {case.slug} is a family's name"))
        if case.family not in names:
            problems.append(Problem(case.file, "schema", f"family {case.family!r} has no file in {families_root}"))
        ids.setdefault(case.id, case.folder_name)
        slugs.setdefault(case.slug, case.folder_name)
    return problems
