"""Regexes compiled once per machine, not once per run: `kb diagnose`'s start-up.

Compiling a regex is pure-Python work in the ``re`` package (its parser and compiler), and importing
``re`` itself (with enum and its constants) costs about half of an empty Python's start-up. What the
compiler produces is a list of integers that the C engine ``_sre`` turns into a pattern object; that
list marshals. So the first run that needs a pattern compiles it with ``re`` and keeps the engine's
input in a cache file; later runs hand the cached input straight to ``_sre.compile`` (a built-in
module, no import cost): no ``re`` import and no compile on the hot path.

What is cached is exactly what ``re.compile`` gives the engine (``re._compiler.compile``), and it is
only kept when the pattern rebuilt from it compares equal to ``re.compile``'s (pattern objects compare
their flags, code and source). The cache is keyed by the Python build and the engine's ``MAGIC``, so
another Python never reads it; ``_sre.compile`` validates the code it is given, and the file is read
only under the index's rules (this user's, private, not a link, a CRC-32; kb/knowledge/index.py).
Anything unexpected (an older or newer ``re`` whose internals differ, a cache that does not verify)
falls back to ``re.compile``: the same patterns, only slower.

Only fixed patterns (kb's own and the knowledge's) go through here, so the cache stays small; a pattern
built from the user's input should use ``re`` directly. New patterns are written back when the process
exits, merged with what another process wrote meanwhile, up to MAX_PATTERNS.
"""

from __future__ import annotations

import _sre
import marshal
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re

STORE_FORMAT = 1
MAX_PATTERNS = 8192
# What the engine's input depends on: the Python build, the engine's version and code word size, byte order.
KEY = f"{STORE_FORMAT}|{sys.version}|{sys.implementation.cache_tag}|{_sre.MAGIC}|{_sre.CODESIZE}|{sys.byteorder}"
ENABLED = _sre.CODESIZE == 4  # the code is stored as 32-bit words ("I")

_memo: dict[tuple[str, int], re.Pattern[str]] = {}  # this process's patterns
_store: list[dict[str, bytes]] = []  # the cache file's entries, read on first use
_new: dict[str, bytes] = {}  # entries compiled by this process, written at exit


def pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, from the cache when it holds the pattern (``flags``: ``re``'s values,
    as ints: 2 for IGNORECASE)."""
    found = _memo.get((source, flags))
    if found is not None:
        return found
    key = source if not flags else f"\x00{flags}\x00{source}"
    compiled = None
    blob = _entries().get(key) if ENABLED else None
    if blob is not None:
        compiled = _rebuild(source, blob)
    if compiled is None:
        compiled, blob = _compile(source, flags)
        if blob is not None:
            _remember(key, blob)
    _memo[(source, flags)] = compiled
    return compiled


def _rebuild(source: str, blob: bytes) -> re.Pattern[str] | None:
    """The pattern built by the engine from a cached entry; None when the entry does not build."""
    try:
        flags, code, groups, groupindex, indexgroup = marshal.loads(blob)
        return _sre.compile(source, flags, memoryview(code).cast("I").tolist(), groups, groupindex, indexgroup)
    except Exception:  # noqa: BLE001 - a bad entry (RuntimeError: invalid SRE code, ...) is compiled afresh
        return None


def _compile(source: str, flags: int) -> tuple[re.Pattern[str], bytes | None]:
    """``re.compile``'s pattern and the entry that rebuilds it (None when it cannot be made or does not
    rebuild the same pattern)."""
    import re

    compiled = re.compile(source, flags)
    if not ENABLED:
        return compiled, None
    try:
        from array import array
        from re import _compiler, _parser

        # re._compiler.compile, step by step, keeping what it hands to _sre.compile
        parsed = _parser.parse(source, flags)
        code = _compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        args = (flags | parsed.state.flags, array("I", code).tobytes(), parsed.state.groups - 1, groupindex,
                tuple(indexgroup))
        blob = marshal.dumps(args)
    except Exception:  # noqa: BLE001 - another re's internals: no cache, re.compile's pattern as it is
        return compiled, None
    return compiled, blob if _rebuild(source, blob) == compiled else None


def escape(text: str) -> str:
    """``re.escape(text)`` without importing ``re``."""
    return text.translate(_SPECIAL)


_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}  # re's _special_chars_map


# -- the cache file ----------------------------------------------------------------------------------

def _path() -> str | None:
    import os
    import zlib

    from kb.knowledge.index import _cache_dir, _safe_dir

    where = _cache_dir()
    if where is None or not _safe_dir(where):
        return None
    return os.path.join(where, f"regex-{zlib.crc32(KEY.encode()):08x}.marshal")


def _entries() -> dict[str, bytes]:
    if not _store:
        path = _path()
        _store.append(_read(path) if path is not None else {})
    return _store[0]


def _read(path: str) -> dict[str, bytes]:
    from kb.knowledge.index import read_verified

    stored = read_verified(path)
    if not isinstance(stored, dict) or stored.get("key") != KEY:
        return {}
    entries = stored.get("patterns")
    if not isinstance(entries, dict):
        return {}
    return entries


def _remember(key: str, blob: bytes) -> None:
    if not _new:
        import atexit

        atexit.register(save)
    _new[key] = blob


def save() -> None:
    """Write this process's new patterns into the cache file (merged with what is there now)."""
    if not _new:
        return
    path = _path()
    if path is None:
        return
    from kb.knowledge.index import write_verified

    entries = _read(path)
    for key, blob in _new.items():
        if len(entries) >= MAX_PATTERNS:
            break
        entries.setdefault(key, blob)
    _new.clear()
    write_verified(path, {"key": KEY, "patterns": entries})
    if _store:
        _store[0] = entries
