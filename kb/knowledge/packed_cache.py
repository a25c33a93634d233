"""Packed copies of big knowledge files in the cache folder: the one place their key, name, trust and checksums live.

The learned fallback's model (kb/knowledge/fallback_pack.py), the API history and its side tables
(kb/knowledge/history_pack.py) are each read, on `kb diagnose`'s start-up, from a copy kept in the cache folder
instead of parsing the shipped file. Every such copy follows the same rules, kept here once:

- its key: the source file's real path, size and mtime, the Python version, the byte order and the copy's format
  (``file_key``); its name: a stem and 32 bits of the key's checksum (``cache_file``);
- a usable cache folder only: kb's own (kb/knowledge/index.py ``_cache_dir``: 0700, this user's, not a link);
  none where the folder is not writable (a copy packed there would be work thrown away on every run); ``look_up``
  is that look-up, once, for every kind of copy;
- read only when it is a regular file this user owns that no one else may write, opened without following a link
  (index.py ``open_private``), and not larger than its format allows (a planted sparse file is not read whole);
- written through mkstemp (O_EXCL|O_NOFOLLOW, 0600) and renamed into place (index_build.py ``write_private``);
- checksummed (kb.knowledge.precompiled's ``checksum``, a 64-bit keyed hash) over what is read, and the key checked
  against the one asked for. Anything that fails a check is not used: the caller reads the shipped file.
"""

from __future__ import annotations

import marshal
import os
import sys

from kb.knowledge.precompiled import checksum

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

def pread(fd: int, length: int, offset: int) -> bytes:
    """``length`` bytes of ``fd`` at ``offset`` (fewer at the end of the file)."""
    if hasattr(os, "pread"):
        return os.pread(fd, length, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, length)


def file_key(path: str, fmt: int) -> str | None:
    """The cache key of the file at ``path`` for a copy of format ``fmt`` (None when it cannot be stat'ed)."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except OSError:
        return None
    return f"{fmt}|{sys.version_info[:2]}|{sys.byteorder}|{real}|{st.st_size}|{st.st_mtime_ns}"


def cache_folder() -> str | None:
    """kb's cache folder where it is one kb may trust (made 0700 when missing), else None."""
    from kb.knowledge.index import _cache_dir, _safe_dir

    where = _cache_dir()
    return where if where is not None and _safe_dir(where) else None


def cache_file(where: str, stem: str, key: str, suffix: str = ".bin") -> str:
    """The copy's path in the folder ``where``: ``stem-XXXXXXXX.suffix``, 32 bits of the key's checksum."""
    return os.path.join(where, f"{stem}-{checksum(key.encode('utf-8', 'surrogatepass')) & 0xFFFFFFFF:08x}{suffix}")


def writable(where: str) -> bool:
    """Whether copies can be written in ``where`` (not: packing would be work thrown away on every run)."""
    return os.access(where, os.W_OK)


def look_up(path: str, fmt: int, stem: str, read: Callable[[str, str], Any],
            suffix: str = ".bin") -> tuple[Any, str | None, str | None]:
    """The copy of the file at ``path`` (format ``fmt``, named ``stem``) in the cache folder: ``(found, key, cache)``.

    ``found``: what ``read(cache, key)`` gives, a reader that opens the copy with open_trusted and checks it against
    the key (None: missing, stale, or failing a check). ``key`` and ``cache``: the file's key and the copy's path,
    where a copy is to be written (nothing found, a folder this user may write); else both None, and ``found`` is
    None too where there is no usable cache folder (the caller reads the shipped file)."""
    key = file_key(path, fmt)
    where = cache_folder() if key is not None else None
    if key is None or where is None:
        return None, None, None
    cache = cache_file(where, stem, key, suffix)
    found = read(cache, key)
    if found is not None or not writable(where):
        return found, None, None
    return None, key, cache


def open_trusted(path: str, max_bytes: int) -> tuple[int, int] | None:
    """(a read-only descriptor, the file's size) of the copy at ``path`` when the cache's rules trust it (a regular
    file, not a link, this user's, writable by no one else) and it is at most ``max_bytes``; else None (nothing
    left open)."""
    from kb.knowledge.index import open_private

    fd = open_private(path)
    if fd is None:
        return None
    try:
        size = os.fstat(fd).st_size
        if size <= max_bytes:
            return fd, size
    except OSError:
        pass
    os.close(fd)
    return None


def read_checked(fd: int, offset: int, length: int, crc: int) -> bytes | None:
    """The ``length`` bytes at ``offset`` when they are all there and their checksum is ``crc``; else None."""
    data = pread(fd, length, offset)
    return data if len(data) == length and checksum(data) == crc else None


def prefixed(body: bytes) -> bytes:
    """``body`` behind its 8-byte checksum (the form read_prefixed reads)."""
    return checksum(body).to_bytes(8, "little") + body


def write(path: str, data: bytes) -> None:
    """Write the copy through mkstemp, renamed into place (nothing left behind on failure)."""
    from kb.knowledge.index_build import write_private

    write_private(path, data)


def read_prefixed(path: str, max_bytes: int) -> bytes | None:
    """The body of a trusted file written as ``prefixed(body)`` when its checksum holds, else None."""
    opened = open_trusted(path, max_bytes)
    if opened is None:
        return None
    fd, _size = opened
    try:
        with open(fd, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except (OSError, ValueError):
        return None
    if 8 < len(data) <= max_bytes and int.from_bytes(data[:8], "little") == checksum(data[8:]):
        return data[8:]
    return None


def marshal_copy(path: str, fmt: int, stem: str, max_bytes: int, read: Callable[[], Any]) -> Any:
    """The value of the file at ``path`` (``read()`` parses it) from its marshal copy ``(key, value)`` in the cache
    folder when that is there under the file's key and passes its checks; else ``read()``'s, written there for the
    next run where the folder is writable and marshal keeps the value (str, int, float, bool, None, lists, dicts,
    tuples, bytes: not a TOML date)."""

    def stored(cache: str, key: str) -> tuple[Any] | None:  # (the value in a 1-tuple: a stored None is found too)
        body = read_prefixed(cache, max_bytes)
        if body is None:
            return None
        try:
            found = marshal.loads(body)
        except (ValueError, EOFError, TypeError):
            return None
        return (found[1],) if type(found) is tuple and len(found) == 2 and found[0] == key else None

    found, key, cache = look_up(path, fmt, stem, stored, ".marshal")
    if found is not None:
        return found[0]
    value = read()
    if cache is not None:
        try:
            body = marshal.dumps((key, value))
        except ValueError:  # (not a value marshal writes)
            return value
        if len(body) + 8 <= max_bytes:
            write(cache, prefixed(body))
    return value
