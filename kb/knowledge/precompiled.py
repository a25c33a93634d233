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
only under the index's rules (this user's, private, not a link; kb/knowledge/index.py), and each entry
carries a checksum and its own source, which must be the one asked for.
Anything unexpected (an older or newer ``re`` whose internals differ, a cache that does not verify)
falls back to ``re.compile``: the same patterns, only slower.

Only fixed patterns (kb's own and the knowledge's) go through here, so the cache stays small; a pattern
built from the user's input should use ``re`` directly. New patterns are written back when the process
exits, merged with what another process wrote meanwhile, up to MAX_PATTERNS.

The file is read in pieces, so that a run pays for the patterns it uses, not for all the file holds (a
machine that has diagnosed many inputs holds most of the knowledge's ~900 patterns, 640 KB): a header of
sorted checksums of the sources with each entry's offset and length, read at once, then one ``pread`` per
pattern used, found by its hash. Layout (32-bit words in the machine's order, which the key names):
``KBRX``, count, key length, the key, count hashes (sorted), count offsets, count lengths, then the entries,
each a checksum of the rest and the marshal (version 2) of (source key, flags, code, groups, groupindex,
indexgroup).
"""

from __future__ import annotations

import _sre
import marshal
import os  # (imported by Python's own start-up: no cost)
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re
    from typing import Any

STORE_FORMAT = 3  # 3: 32 bits of ``checksum`` where 2 had zlib's CRC-32
MAX_PATTERNS = 4096
MAGIC = b"KBRX"
# What the engine's input depends on: the Python build, the engine's version and code word size, byte order.
KEY = f"{STORE_FORMAT}|{sys.version}|{sys.implementation.cache_tag}|{_sre.MAGIC}|{_sre.CODESIZE}|{sys.byteorder}"
ENABLED = _sre.CODESIZE == 4  # the code and the header are stored as 32-bit words ("I")

_memo: dict[tuple[str, int], re.Pattern[str]] = {}  # this process's patterns
_store: list[Any] = []  # [(descriptor, hashes, offsets, lengths)] or [None]: opened on first use
_new: dict[str, bytes] = {}  # entries compiled by this process (by source key), written at exit


def pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, from the cache when it holds the pattern (``flags``: ``re``'s values,
    as ints: 2 for IGNORECASE)."""
    found = _memo.get((source, flags))
    if found is not None:
        return found
    flags = int(flags)  # (re.IGNORECASE formats as its name)
    key = source if not flags else f"\x00{flags}\x00{source}"
    compiled = None
    fields = _lookup(key) if ENABLED else None
    if fields is not None:
        compiled = _rebuild(source, fields)
    if compiled is None:
        compiled, entry = _compile(source, flags)
        if entry is not None:
            _remember(key, entry)
    _memo[(source, flags)] = compiled
    return compiled


def _rebuild(source: str, fields: tuple[Any, ...]) -> re.Pattern[str] | None:
    """The pattern built by the engine from a cache entry's fields; None when they do not build."""
    try:
        _key, flags, code, groups, groupindex, indexgroup = fields
        return _sre.compile(source, flags, memoryview(code).cast("I").tolist(), groups, groupindex, indexgroup)
    except Exception:  # noqa: BLE001 - a bad entry (RuntimeError: invalid SRE code, ...) is compiled afresh
        return None


def _compile(source: str, flags: int) -> tuple[re.Pattern[str], bytes | None]:
    """``re.compile``'s pattern and the cache entry that rebuilds it (None when it cannot be made or does not
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
        key = source if not flags else f"\x00{flags}\x00{source}"
        payload = marshal.dumps((key, flags | parsed.state.flags, array("I", code).tobytes(), parsed.state.groups - 1,
                                 groupindex, tuple(indexgroup)), 2)
        entry = _crc(payload).to_bytes(4, "little") + payload
    except Exception:  # noqa: BLE001 - another re's internals: no cache, re.compile's pattern as it is
        return compiled, None
    return compiled, entry if _rebuild(source, _fields(entry, key) or ()) == compiled else None


# The methods a Deferred takes over from its pattern at the first use, so that later uses are plain attribute reads.
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "split", "sub", "subn")


class Deferred:
    """``pattern(source, flags)``, built at its first use instead of where a module names it (turn 45): rebuilding a
    pattern from the cache costs ~25-40 us, and most runs of `kb diagnose` never use some of a module's fixed
    patterns (the dev set's inputs: kb/diagnose/flatten.py's, imported for every traceback, 10 to 13 of its 16;
    the versions scanner's pins and pip lines, most of 16). Every attribute is the pattern's: the first use builds
    it and makes its methods this object's own (a read of a slot, no forwarding call, from then on); the other
    attributes (``pattern``, ``flags``, ``groups``...) are forwarded. A module that uses the pattern as an object
    (an argument to ``re``, ``isinstance``, ``==``) must name the pattern itself, not a Deferred."""

    __slots__ = ("_source", "_flags", *_METHODS)

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags = source, flags
        DEFERRED.append(self)

    @property
    def built(self) -> bool:
        """Whether the pattern has been built (used) yet."""
        try:
            object.__getattribute__(self, "search")
        except AttributeError:
            return False
        return True

    def __getattr__(self, name: str) -> Any:  # (only for attributes not set yet: the methods before the first use)
        if name in ("_source", "_flags"):
            raise AttributeError(name)
        compiled = pattern(self._source, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"Deferred({self._source!r}, {self._flags})"


DEFERRED: list[Deferred] = []  # every Deferred made (tests check each builds what re.compile builds)


def escape(text: str) -> str:
    """``re.escape(text)`` without importing ``re``."""
    return text.translate(_SPECIAL)


_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}  # re's _special_chars_map


# -- the cache file ----------------------------------------------------------------------------------

try:
    from _imp import source_hash as _source_hash  # CPython's (3.7+), a built-in: nothing to import
except ImportError:  # another Python
    _source_hash = None
_CHECKSUM_KEY = 0x6B62  # any constant: the checksum must be the same in every process


def checksum(data: bytes | memoryview) -> int:
    """A 64-bit checksum of ``data``, the same in every process: the caches' damage check and file names (this
    one's and kb/knowledge/index.py's). SipHash-1-3, through the built-in importlib checks hash-based .pyc files
    with; zlib's CRC-32 would load a shared library (zlib's import: ~0.27 ms of `kb diagnose`'s start-up)."""
    if _source_hash is not None:
        return int.from_bytes(_source_hash(_CHECKSUM_KEY, data), "little")
    import zlib

    return zlib.crc32(data)


def _crc(data: bytes | memoryview) -> int:
    """checksum's low 32 bits (the file's layout keeps 32-bit words); called twice per pattern a run uses."""
    if _source_hash is not None:
        return int.from_bytes(_source_hash(_CHECKSUM_KEY, data), "little") & 0xFFFFFFFF
    return checksum(data) & 0xFFFFFFFF


def _hash(key: str) -> int:
    return _crc(key.encode("utf-8", "surrogatepass"))


def _path() -> str | None:
    from kb.knowledge.index import _cache_dir, _safe_dir

    where = _cache_dir()
    if where is None or not _safe_dir(where):
        return None
    return os.path.join(where, f"regex-{_hash(KEY):08x}.bin")


def _open() -> Any:
    """(descriptor, hashes, offsets, lengths) of the cache file, or None (no file, not this user's, not ours)."""
    if _store:
        return _store[0]
    opened = None
    path = _path()
    if path is not None:
        from kb.knowledge.index import open_private

        fd = open_private(path)
        if fd is not None:
            opened = _header(fd)
            if opened is None:
                os.close(fd)
    _store.append(opened)
    return opened


def _header(fd: int) -> Any:
    try:
        head = os.pread(fd, 12, 0)
        if len(head) < 12 or head[:4] != MAGIC:
            return None
        count, key_length = memoryview(head)[4:].cast("I")
        if count > MAX_PATTERNS or key_length > 4096:
            return None
        rest = os.pread(fd, key_length + 12 * count, 12)
    except OSError:
        return None
    if len(rest) != key_length + 12 * count or rest[:key_length] != KEY.encode():
        return None
    words = memoryview(rest)[key_length:].cast("I")
    return fd, words[:count], words[count:2 * count], words[2 * count:]


def first_at_least(hashes: memoryview, wanted: int) -> int:
    """The index of the first of the sorted ``hashes`` that is ``wanted`` or more (len(hashes) when none is): a
    binary search, ~12 steps for the file's MAX_PATTERNS. (turn 44: a dict of every hash, built when the file was
    opened, cost ~0.1 ms per 1,000 patterns on every run, ~0.25-0.5 ms for a machine's cache of 2,000-4,000, to look
    up the ~30 a run uses; bisect's import, a shared library in some builds, costs more than this search.)"""
    lo, hi = 0, len(hashes)
    while lo < hi:
        mid = (lo + hi) // 2
        if hashes[mid] < wanted:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _lookup(key: str) -> tuple[Any, ...] | None:
    """The fields of the cache entry for ``key`` (verified: its checksum, its key), or None."""
    opened = _open()
    if opened is None:
        return None
    fd, hashes, offsets, lengths = opened
    wanted = _hash(key)
    i = first_at_least(hashes, wanted)
    while i < len(hashes) and hashes[i] == wanted:
        try:
            entry = os.pread(fd, lengths[i], offsets[i])
        except OSError:
            return None
        fields = _fields(entry, key)
        if fields is not None:
            return fields
        i += 1
    return None


def _fields(entry: bytes, key: str | None) -> tuple[Any, ...] | None:
    """An entry's fields when its checksum holds and it is the entry of ``key`` (of any key: None)."""
    try:
        payload = memoryview(entry)[4:]
        if int.from_bytes(entry[:4], "little") != _crc(payload):
            return None
        fields = marshal.loads(payload)
    except Exception:  # noqa: BLE001 - a damaged entry is no entry
        return None
    if not (isinstance(fields, tuple) and len(fields) == 6 and isinstance(fields[0], str)):
        return None
    return fields if key is None or fields[0] == key else None


def _remember(key: str, entry: bytes) -> None:
    if not _new:
        import atexit

        atexit.register(save)
    _new[key] = entry


def _all_entries() -> dict[str, bytes]:
    """Every verified entry of the cache file, by key."""
    opened = _open()
    if opened is None:
        return {}
    fd, _hashes, offsets, lengths = opened
    entries = {}
    for offset, length in zip(offsets, lengths):
        try:
            entry = os.pread(fd, length, offset)
        except OSError:
            return entries
        fields = _fields(entry, None)
        if fields is not None:
            entries[fields[0]] = entry
    return entries


def save() -> None:
    """Write this process's new patterns into the cache file (merged with what is there now). Runs at exit:
    whatever goes wrong, nothing is printed (a cache that is not written is compiled again next time)."""
    try:
        _save()
    except Exception:  # noqa: BLE001, S110 - see the docstring
        pass


def _save() -> None:
    if not _new:
        return
    path = _path()
    if path is None:
        return
    from kb.knowledge.index_build import write_private

    _close()  # read what the file holds now (another process may have added to it)
    entries = _all_entries()
    for key, entry in _new.items():
        if len(entries) >= MAX_PATTERNS:
            break
        entries.setdefault(key, entry)
    _new.clear()
    _close()
    from array import array

    ordered = sorted(entries.items(), key=lambda item: _hash(item[0]))
    key = KEY.encode()
    offset = 12 + len(key) + 12 * len(ordered)
    offsets, lengths = array("I"), array("I")
    for _k, entry in ordered:
        offsets.append(offset)
        lengths.append(len(entry))
        offset += len(entry)
    hashes = array("I", (_hash(k) for k, _ in ordered))
    head = MAGIC + array("I", [len(ordered), len(key)]).tobytes() + key
    write_private(path, b"".join([head, hashes.tobytes(), offsets.tobytes(), lengths.tobytes(),
                                  *(entry for _k, entry in ordered)]))


def _close() -> None:
    """Forget the open cache file (the next lookup opens it again)."""
    if _store and _store[0] is not None:
        os.close(_store[0][0])
    _store.clear()
