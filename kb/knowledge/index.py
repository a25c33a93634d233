"""A cached, lazily compiled index of every case's signatures, for `kb diagnose`'s start-up.

Loading the cases themselves means parsing every ``case.md`` (TOML) and compiling
every regex before the first line of input is read: most of diagnose's start-up.
The index keeps what matching needs as JSON in a cache file keyed by each
``case.md``'s path, size and modification time (plus the kb and Python versions),
so a warm start reads one file (marshal's format: no json import, and it loads faster;
the Python version in the key covers marshal's). Regexes compile on first use, and each signature
carries a literal that must occur in a message for its regex to have any chance
(``may_match``), so most are never compiled at all.

The objects here quack like :class:`kb.knowledge.case.Case` / :class:`kb.knowledge.case.Signature`
for the attributes the matcher reads; the index is derived, never edited.
"""

from __future__ import annotations

import marshal
import os
import re
import sys
import zlib
from kb import __version__, cases_root

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

INDEX_FORMAT = 5
MIN_LITERAL = 4


def _cache_dir() -> str:
    override = os.environ.get("KB_CACHE_DIR")
    if override:
        return override
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kb")


def required_literal(pattern: str) -> str:
    """The longest literal run every match of ``pattern`` must contain ('' if none is certain).

    Walks the top level of the parsed pattern (descending into plain groups); any
    branch, repeat or class ends a run. Case-insensitive patterns get ''.
    """
    from re import _constants as C, _parser  # noqa: N812 - private but stable since 3.11

    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return ""
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):
        return ""
    best, run = "", []

    def walk(items: Any) -> None:
        nonlocal best, run
        for op, arg in items:
            if op is C.LITERAL:
                run.append(chr(arg))
                continue
            if op is C.SUBPATTERN and not (arg[1] or arg[2]):  # a group without local flags
                walk(arg[3])
                continue
            if op is C.AT:  # anchors consume nothing
                continue
            text = "".join(run)
            if len(text) > len(best):
                best = text
            run = []

    walk(parsed)
    text = "".join(run)
    if len(text) > len(best):
        best = text
    return best if len(best) >= MIN_LITERAL else ""


class IndexedSignature:
    """A signature as the matcher sees it; regexes compile on first use."""

    __slots__ = ("name", "exceptions", "requires_frame", "requires_type", "compare", "literal", "_raw", "_compiled")

    def __init__(self, raw: dict[str, Any]) -> None:
        self.name: str = raw["name"]
        self.exceptions: tuple[str, ...] = tuple(raw["exceptions"])
        self.requires_frame: bool = raw["requires_frame"]
        self.requires_type: bool = raw.get("requires_type", False)
        self.compare: tuple[tuple[str, str, str], ...] = tuple(tuple(c) for c in raw.get("compare", ()))  # type: ignore[misc]
        self.literal: str = raw["literal"]
        self._raw = raw
        self._compiled: dict[str, Any] = {}

    def _get(self, key: str) -> Any:
        if key not in self._compiled:
            raw = self._raw[key]
            if key == "message":
                value: Any = re.compile(raw)
            elif key == "environment":
                value = tuple((k, re.compile(v)) for k, v in raw)
            else:
                value = tuple(re.compile(p) for p in raw)
            self._compiled[key] = value
        return self._compiled[key]

    @property
    def message(self) -> re.Pattern[str]:
        return self._get("message")

    @property
    def frames(self) -> tuple[re.Pattern[str], ...]:
        return self._get("frames") if self._raw["frames"] else ()

    @property
    def hints(self) -> tuple[re.Pattern[str], ...]:
        return self._get("hints") if self._raw["hints"] else ()

    @property
    def excludes(self) -> tuple[re.Pattern[str], ...]:
        return self._get("excludes") if self._raw["excludes"] else ()

    @property
    def environment(self) -> tuple[tuple[str, re.Pattern[str]], ...]:
        return self._get("environment") if self._raw["environment"] else ()

    def may_match(self, text: str) -> bool:
        return not self.literal or self.literal in text

    def accepts_type(self, exception_type: str) -> bool:
        short = exception_type.rsplit(".", 1)[-1]
        return any(short == e.rsplit(".", 1)[-1] for e in self.exceptions)


class IndexedCase:
    """The parts of a case that matching and the diagnosis document read."""

    __slots__ = ("id", "slug", "title", "status", "folder_name", "fix_template", "signatures")

    def __init__(self, raw: dict[str, Any]) -> None:
        self.id: str = raw["id"]
        self.slug: str = raw["slug"]
        self.title: str = raw["title"]
        self.status: str = raw["status"]
        self.folder_name: str = raw["folder_name"]
        self.fix_template: str = raw["fix_template"]
        self.signatures = tuple(IndexedSignature(s) for s in raw["signatures"])


def build_entries(root: str) -> list[dict[str, Any]]:
    """Load every case (the slow path) and flatten what matching needs."""
    from pathlib import Path

    from kb.knowledge.case import load_case
    from kb.knowledge.registry import case_folders

    entries = []
    for case in (load_case(folder) for folder in case_folders(Path(root))):  # fresh, not registry's memo
        entries.append(
            {
                "id": case.id,
                "slug": case.slug,
                "title": case.title,
                "status": case.status,
                "folder_name": case.folder_name,
                "fix_template": case.fix_template,
                "signatures": [
                    {
                        "name": s.name,
                        "exceptions": list(s.exceptions),
                        "message": s.message.pattern,
                        "frames": [p.pattern for p in s.frames],
                        "hints": [p.pattern for p in s.hints],
                        "excludes": [p.pattern for p in s.excludes],
                        "environment": [[k, p.pattern] for k, p in s.environment],
                        "requires_frame": s.requires_frame,
                        "compare": [list(c) for c in s.compare],
                        "requires_type": s.requires_type,
                        "literal": required_literal(s.message.pattern),
                    }
                    for s in case.signatures
                ],
            }
        )
    return entries


def index_key(root: str) -> str | None:
    """Every case.md's name, size and mtime in one string; None when the folder is missing.

    The cache file is named by a CRC of this key and stores the key itself, which is compared
    on load, so a CRC collision costs a rebuild, never a stale index (and no hashlib import).
    """
    parts = [f"{INDEX_FORMAT}|{__version__}|{sys.version_info[:2]}|{root}"]
    try:
        folders = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return None
    for entry in folders:
        try:
            st = os.stat(os.path.join(entry.path, "case.md"))
        except OSError:
            continue
        parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


def load_index(root: Path | str | None = None) -> list[IndexedCase]:
    """Every case's signatures, from the cache when it is current, else rebuilt and cached."""
    root = os.path.realpath(root if root is not None else cases_root())
    key = index_key(root)
    cache = os.path.join(_cache_dir(), f"signatures-{zlib.crc32(key.encode()):08x}.marshal") if key else None
    entries: list[dict[str, Any]] | None = None
    if cache is not None:
        try:
            with open(cache, "rb") as handle:
                stored = marshal.load(handle)
            entries = stored["cases"] if stored.get("key") == key else None
        except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError):
            entries = None
    if entries is None:
        entries = build_entries(root)
        if cache is not None:
            try:
                os.makedirs(os.path.dirname(cache), exist_ok=True)
                tmp = f"{cache}.{os.getpid()}.tmp"
                with open(tmp, "wb") as handle:
                    marshal.dump({"key": key, "cases": entries}, handle)
                os.replace(tmp, cache)
            except OSError:
                pass  # a read-only home: the index is just not cached
    return [IndexedCase(e) for e in entries]
