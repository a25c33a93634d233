"""The examples `kb check` runs kb diagnose on: examples/manifest.toml, read through kb/knowledge/examples.py.

An entry's ``expect`` is the case slug kb diagnose must rank first; with ``expect = "none"`` the answer
must be the entry's ``family``. Every ``examples/*.txt`` needs an entry. (Why a signature nothing
exercises is still kept is said beside the signature, in its ``unexercised`` field.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.knowledge.examples import MANIFEST, load_examples
from kb.knowledge.model import KnowledgeError
from kb.tidy.problem import Problem


@dataclass
class Manifest:
    path: Path
    examples: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def read_manifest(folder: Path) -> Manifest:
    """The examples folder's manifest (empty when there is none); its faults are ``example`` problems."""
    manifest = Manifest(folder / MANIFEST)
    try:
        manifest.examples = load_examples(manifest.path)
    except KnowledgeError as exc:
        manifest.problems.append(Problem(str(manifest.path), "example", str(exc).replace(f"{manifest.path}: ", "")))
    return manifest
