"""Incident stories: ``incidents/<name>.toml`` in the knowledge root, one per report the cases came from
(the setting, the attempts in order with the case reproducing each, how it ended). kb/site renders them."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from kb.knowledge.model import KnowledgeError

STORY_KEYS = {"title", "summary", "setting", "ending", "attempts"}
ATTEMPT_KEYS = {"tried", "hit", "cases", "worked"}


def incidents_dir() -> Path:
    """``incidents/`` beside the cases folder (``$KB_CASES_DIR``'s parent in the docs tests)."""
    import os

    from kb.knowledge.paths import folder

    override = os.environ.get("KB_CASES_DIR")
    return Path(override).parent / "incidents" if override else Path(folder("incidents"))


def load_story(path: Path) -> dict[str, Any]:
    """One story file, checked: the keys it may have, every attempt's ``tried``, ``hit`` and ``cases``."""
    story = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = set(story) - STORY_KEYS
    missing = {"title", "summary", "setting", "ending", "attempts"} - set(story)
    if unknown or missing:
        raise KnowledgeError(f"{path}: unknown keys {sorted(unknown)}, missing keys {sorted(missing)}")
    for i, attempt in enumerate(story["attempts"], start=1):
        bad = set(attempt) - ATTEMPT_KEYS or {"tried", "hit", "cases"} - set(attempt)
        if bad:
            raise KnowledgeError(f"{path}: attempt {i}: unknown or missing keys {sorted(bad)}")
    return story


def stories(folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """Every story file: ``{report name: story}``."""
    folder = incidents_dir() if folder is None else folder
    return {p.stem: load_story(p) for p in sorted(folder.glob("*.toml"))} if folder.is_dir() else {}
