"""Labelled examples of real error output: a manifest (TOML, ``[[entry]]``) beside the text files.

The dev set (``tests/fixtures/diagnose/manifest.toml`` in the checkout) and ``examples/manifest.toml``
in the knowledge root share the format (kb/knowledge/schema.py, EXAMPLE): each entry names its file,
where it was posted, and what kb diagnose should answer for it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kb.knowledge.model import KnowledgeError
from kb.knowledge.paths import CHECKOUT_ROOT, folder

MANIFEST = "manifest.toml"


def devset_manifest() -> Path:
    """The dev set's manifest; it lives in the checkout's tests (a wheel does not carry it)."""
    return Path(CHECKOUT_ROOT) / "tests" / "fixtures" / "diagnose" / MANIFEST


def examples_manifest() -> Path:
    return Path(folder("examples")) / MANIFEST


def load_examples(manifest: Path | str) -> list[dict[str, Any]]:
    """The manifest's entries, validated (every key known, defaults filled); each entry's ``path`` is its
    file's absolute path. A missing manifest gives []; a broken one raises KnowledgeError."""
    from kb.knowledge.tables import read_table_file

    manifest = Path(manifest)
    if not manifest.is_file():
        return []
    entries = read_table_file(os.fspath(manifest), "examples")["entry"]
    for i, entry in enumerate(entries):
        entry["path"] = str(manifest.parent / entry["file"])
        if not os.path.isfile(entry["path"]):
            raise KnowledgeError(f"{manifest}: entry[{i}].file: no file {entry['file']!r} beside the manifest")
    return entries


PENDING = "FIRST SCORE PENDING"


def pending_sets(manifest: Path | str) -> set[str]:
    """The dev sets whose first score is still to be taken: their sampling file (``SET-sampling.txt`` beside the
    manifest) opens with "FIRST SCORE PENDING", as a sealed batch's does until the integrator scores it at the end
    of the session. Nothing that diagnoses, trains or checks reads them before then (a check's message would tell
    how kb answers them)."""
    folder_path = Path(manifest).parent
    return {p.name.removesuffix("-sampling.txt") for p in folder_path.glob("*-sampling.txt")
            if p.read_text(encoding="utf-8", errors="replace").lstrip().startswith(PENDING)}


def in_pending_set(path: Path | str, pending: set[str]) -> bool:
    """Whether a fixture file belongs to one of the ``pending`` sets (``pending_sets``): its name starts with the
    set's name (``dev/drift-48-instructlab-3456.txt``), for readers that glob the fixture folder instead of the
    manifest."""
    name = Path(path).name
    return any(name.startswith(f"{s}-") for s in pending)
