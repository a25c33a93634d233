"""Building the knowledge index (kb/knowledge/index.py) from the knowledge files and writing its cache file: the
slow path, taken when the cache is missing, stale or damaged. kb/knowledge/index.py's docstring describes the file;
a warm `kb diagnose` reads it there and never imports this module.
"""

from __future__ import annotations

import marshal
import os

from kb.knowledge.index import _PREFIX, _well_formed, secrets_screen
from kb.knowledge.regex_reach import secrets_reach
from kb.knowledge.indexed import EAGER_FIELDS, LAZY_TABLES
from kb.knowledge.model import Knowledge
from kb.knowledge.precompiled import checksum

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any


def build_entries(case_root: str, family_root: str) -> dict[str, Any]:
    """Load every case and family (the slow path: TOML, validation, cross-references) and keep the
    loader's normalised dicts, plus each signature's required literal, for the cache."""
    from pathlib import Path

    from kb.knowledge.load import EXCEPTION_TYPES_FILE, load_exception_types
    from kb.knowledge.prefilter import any_literals
    from kb.knowledge.registry import load_all

    cases, families = load_all(Path(case_root), Path(family_root))  # afresh, not the registry's memo

    def entry(item: Any) -> list[Any]:
        eager = {k: v for k, v in item.meta.items() if k in EAGER_FIELDS}
        rest = {k: v for k, v in item.meta.items() if k not in EAGER_FIELDS and k != "signatures"}
        # (marshal version 2: no back-references, whose flags follow reference counts, so the same knowledge
        # always gives the same bytes)
        # (for a signature without a literal, the literals one of which its every match holds: kb/knowledge/prefilter.py)
        return [item.file, eager, [s.literal for s in item.signatures], marshal.dumps(item.meta["signatures"], 2),
                marshal.dumps(rest, 2), [[] if s.literal else list(any_literals(s.raw["message"]))
                                         for s in item.signatures]]

    from kb.knowledge.tables import small_tables

    whole = Knowledge(tuple(cases), tuple(families), {})
    leading = sorted(whole.leading_literals())
    tables = small_tables()
    return {"cases": [entry(c) for c in cases], "families": [entry(f) for f in families], "leading": leading,
            "literals": list(whole.literals()), "screen": [*secrets_screen(tables["secrets"]), secrets_reach(tables["secrets"])],
            "meanings": load_exception_types(os.path.join(family_root, EXCEPTION_TYPES_FILE)),
            "tables": tables, "prior_literals": prior_literals(tables.get("priors"))}


def prior_literals(priors: dict[str, Any] | None) -> dict[str, list[str]]:
    """(turn 48) {message regex: literals one of which its every match holds} of tables/priors.toml's [[error]] rules
    that have such literals (kb/knowledge/prefilter.py any_literals, as the signatures): the priors stage searches a
    message with a rule's regex only when one of them is in it (kb/diagnose/prior_rules.py), so an error no signature
    answered builds few of the rules' ~55 regexes (~0.35 ms)."""
    from kb.knowledge.prefilter import any_literals

    found = {}
    for rule in (priors or {}).get("error", []):
        message = rule.get("message")
        if isinstance(message, str) and message and message not in found:
            found[message] = list(any_literals(message))
    return {message: literals for message, literals in found.items() if literals}


def write_cache(cache: str, key: str, entries: dict[str, Any]) -> None:
    """Write ``entries`` (as build_entries gives them) to the cache file ``cache``, under ``key``."""
    data = pack(key, entries)
    if data is not None:
        write_private(cache, data)


def pack(key: str, entries: dict[str, Any]) -> bytes | None:
    """The cache file's bytes for ``entries`` (as build_entries gives them): see the module's docstring."""
    pieces: list[bytes] = []
    at = 0

    def ref(data: bytes) -> tuple[int, int, int]:
        nonlocal at
        pieces.append(data)
        at += len(data)
        return (at - len(data), len(data), checksum(data))

    head_entries = {k: v for k, v in entries.items() if k not in ("cases", "families")}
    head_entries["tables"] = {name: {k: marshal.dumps(v, 2) for k, v in t.items()} if name in LAZY_TABLES else t
                              for name, t in entries["tables"].items()}
    for kind in ("cases", "families"):
        head_entries[kind] = [[file, meta, literals, ref(signatures), ref(rest), alternatives]
                              for file, meta, literals, signatures, rest, alternatives in entries[kind]]
    try:
        head = marshal.dumps({"key": key, "entries": head_entries})
    except ValueError:
        return None
    return checksum(head).to_bytes(8, "big") + len(head).to_bytes(4, "big") + head + b"".join(pieces)


def unpack(data: bytes) -> dict[str, Any] | None:
    """What pack's bytes hold ({"key", "entries"} with each piece's bytes in place), when the head and every piece
    verify; else None. (The cache's tests and benchmarks/diagnose_hostile.py read and plant files with it.)"""
    if len(data) < _PREFIX:
        return None
    length = int.from_bytes(data[8:_PREFIX], "big")
    head = data[_PREFIX:_PREFIX + length]
    if len(head) != length or int.from_bytes(data[:8], "big") != checksum(head):
        return None
    try:
        stored = marshal.loads(head)
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(stored, dict) or not _well_formed(stored.get("entries"), True):
        return None
    base = _PREFIX + length
    tables = stored["entries"]["tables"]
    for name in LAZY_TABLES:
        if name in tables:
            try:
                tables[name] = {k: marshal.loads(v) for k, v in tables[name].items()}
            except (ValueError, EOFError, TypeError):
                return None
    for kind in ("cases", "families"):
        for item in stored["entries"][kind]:
            for slot in (3, 4):
                offset, size, crc = item[slot]
                piece = data[base + offset:base + offset + size]
                if len(piece) != size or checksum(piece) != crc:
                    return None
                item[slot] = piece
    return stored


def write_private(cache: str, data: bytes) -> None:
    """Write a cache file through a temporary file made by mkstemp (O_EXCL|O_NOFOLLOW, mode 0600) in the cache's
    own folder, renamed into place; leave nothing behind on failure."""
    import tempfile

    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(cache) + ".", suffix=".tmp", dir=os.path.dirname(cache))
        with open(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, cache)
    except (OSError, ValueError):
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass  # a read-only home: the index is just not cached
