"""A cached, lazily compiled index of the knowledge, for `kb diagnose`'s start-up.

Loading the knowledge files means parsing every ``case.md`` and family file (TOML), validating
them and compiling every regex before the first line of input is read: most of diagnose's
start-up. The index caches the loader's normalised dicts (kb/knowledge/load.py) in one file keyed
by each knowledge file's path, size and modification time (plus the kb and Python versions), in
marshal's format (no json import, and it loads faster; the Python version in the key covers
marshal's). A warm start builds the same model classes (kb/knowledge/model.py) from it without
TOML or validation. Regexes compile on first use, and each signature carries a literal that must
occur in a message for its regex to have any chance (``may_match``), so most are never compiled.

The cache file is verified before it is used (marshal loads a flipped byte without complaint, and prints
it inside a case's text). It is a head and pieces: the head's checksum (8 bytes) and length (4 bytes,
big-endian), the head (marshal: the key, each entry's eager fields and literals, the small tables, and for
each entry's two lazily decoded parts the offset, length and checksum of its piece), then the pieces. The
head is read and checked at load (its checksum, its key, its shape; its entries are built into the model);
a piece is read when its entry is decoded (kb/knowledge/indexed.py), by ``pread`` on the descriptor the
head came from, and checked against its checksum. A file that fails any of these is rebuilt from the
knowledge files and written again, whether at load or at the first piece that fails. A failed write
leaves no temporary file behind. The checksum is kb/knowledge/precompiled.py's ``checksum`` (not zlib's
CRC-32: zlib is a shared library to load, ~0.27 ms of `kb diagnose`'s start-up).

The cache trusts nothing another user could have put there (the key is computable, so a planted file
would otherwise be read, and its "fix" printed): the folder is created 0700 and is used only when it
is a real directory (not a link) owned by this user and writable by no one else; the file too must be
this user's, not a link (opened with O_NOFOLLOW) and writable by no one else. The temporary file is
made by mkstemp (O_CREAT|O_EXCL|O_NOFOLLOW: a planted link is never followed) and renamed into place.
Where the cache goes follows the XDG spec: $KB_CACHE_DIR when that is an absolute path (a relative one means no
cache), else $XDG_CACHE_HOME/kb when that is an absolute path (a relative one is ignored), else ~/.cache/kb; an
empty or relative HOME means no cache.
Whenever a check fails, kb works without the cache (slower start, same answers).
"""

from __future__ import annotations

import marshal
import os
import sys

from kb import __version__
from kb.knowledge.paths import cases_root, families_root, folder
from kb.knowledge.indexed import (
    LAZY_TABLES, IndexedCase, IndexedFamily, IndexedKnowledge, LazyMeta, LazyTable, Pieces, pread,
)
from kb.knowledge.model import CASE_FILE, LOADED_TABLES, Knowledge
from kb.knowledge.precompiled import checksum

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

INDEX_FORMAT = 20  # 7: the file starts with a CRC-32 of its content; 8: the small tables (tables/*.toml) too;
# 9: each entry's signatures and the rest of its fields as marshal bytes, decoded on first use (kb/knowledge/indexed.py);
# 10: a checked head and per-entry pieces read on demand, each with its checksum (SipHash, not zlib's CRC-32);
# 11: the key names each file by its name in its folder (index_key); 12, 13: each entry's any-of literals (prefilter.py);
# 14: the knowledge's literals (Knowledge.literals(), every run's trigger words) computed at build; 15: the head keeps
# the sections of indexed.LAZY_TABLES (priors) as marshal bytes, decoded when read; 16: redaction's screen (secrets_screen)
# 17: the planner's tables (indexed.PLAN_TABLES), as read, in LAZY_TABLES; 18: the screen holds each secrets rule's
# reach (kb/knowledge/regex_reach.py); 19: tables/secrets.toml's sections too in LAZY_TABLES; 20: the literals one of
# which each of the priors' [[error]] message regexes needs (index_build.prior_literals)


# The stat module's constants (POSIX values, the same on every platform Python runs on), without its import.
_S_IFMT, _S_IFDIR, _S_IFREG, _S_IWGRP, _S_IWOTH = 0o170000, 0o040000, 0o100000, 0o020, 0o002


def _cache_dir() -> str | None:
    """Where the cache lives, or None for no cache (see the module's docstring)."""
    where = _cache_path()
    # (turn 42) a path holding a control character (a line end that `export X="$(cat file)"` or a config
    # generator left at its end) is a mistake, not a place: kb makes no folder whose name ends in a line end
    if where is not None and any(ord(c) < 32 or ord(c) == 127 for c in where):
        return None
    return where


def _cache_path() -> str | None:
    override = os.environ.get("KB_CACHE_DIR")
    if override:  # a relative one would follow the current folder (a cache written into whatever checkout kb runs in)
        return os.path.normpath(override) if os.path.isabs(override) else None
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "kb")
    if os.environ.get("HOME") == "":  # expanduser would give "" and the cache would land in ./.cache or /.cache
        return None
    home = os.path.expanduser("~")
    if not os.path.isabs(home):
        return None
    return os.path.join(home, ".cache", "kb")


def _private(st: os.stat_result) -> bool:
    """Owned by this user and writable by no one else (where the platform has owners)."""
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False
    return not st.st_mode & (_S_IWGRP | _S_IWOTH)


def _safe_dir(path: str) -> bool:
    """Create ``path`` (0700) if needed; whether it is a directory (not a link) kb may trust."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except (OSError, RecursionError):  # (makedirs recurses once a folder: a path of 3,000 folders runs out of stack)
        return False
    return st.st_mode & _S_IFMT == _S_IFDIR and _private(st)


def build_entries(case_root: str, family_root: str) -> dict[str, Any]:
    """The index's entries built from the knowledge files (kb/knowledge/index_build.py, imported only for a build:
    a warm start reads the cache)."""
    from kb.knowledge.index_build import build_entries as build

    return build(case_root, family_root)


# re.escape's table (its characters that a regex reads as syntax), without importing re
_ESCAPES = {c: "\\" + chr(c) for c in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def any_of(words: set[str]) -> str:
    """A regex that finds any of ``words`` (none empty), grouped by first character (``a(?:bia|cca)|b(?:earer)``):
    sre tries the alternatives of a position one by one, and with one branch a first character it tries ~30,
    not ~140 (5 us an error message, not 23). A word that another starts with is enough to find alone."""
    by_first: dict[str, list[str]] = {}
    for word in sorted(words):  # (translate, a dict lookup a character, only where a character may need it)
        by_first.setdefault(word[0], []).append(word[1:] if word.isalnum() else word[1:].translate(_ESCAPES))
    branches = []
    for first, rests in by_first.items():
        first = first if first.isalnum() else first.translate(_ESCAPES)
        branches.append(first if "" in rests else f"{first}(?:{'|'.join(rests)})")
    return "|".join(branches)


def secrets_screen(table: dict[str, Any]) -> tuple[str, int]:
    """Redaction's screen (kb/diagnose/redact/rules.py ``screen``) of tables/secrets.toml: the source of a regex that
    finds any of its token rules' keywords, and the shortest ``min_word`` of a rule without keywords. The index
    computes it when it is built (~0.15 ms a run otherwise) and hands it out for the table it loaded."""
    always = [r["min_word"] for r in table["rule"] if not r["keywords"]]
    return any_of({k for r in table["rule"] for k in r["keywords"]}), min(always, default=1 << 30)


_SCREEN: list[tuple[dict[str, Any], str, int, list[list[Any]]]] = []  # (the secrets table the index loaded, its screen,
# its rules' reach)


def remembered_screen(table: dict[str, Any]) -> tuple[str, int] | None:
    """secrets_screen(table) as the index built it, when ``table`` is the very table the index loaded; else None."""
    if _SCREEN and _SCREEN[0][0] is table:
        return _SCREEN[0][1], _SCREEN[0][2]
    return None


def remembered_reach(table: dict[str, Any]) -> list[list[Any]] | None:
    """(leaks46) kb/knowledge/regex_reach.py's secrets_reach(table) as the index built it, when ``table`` is the very
    table the index loaded; else None."""
    if _SCREEN and _SCREEN[0][0] is table:
        return _SCREEN[0][3]
    return None


def index_key(case_root: str, family_root: str, tables_root: str = "") -> str | None:
    """Every knowledge file's name, size and mtime in one string; None when the cases folder is missing.

    The cache file is named by a checksum of this key and stores the key itself, which is compared
    on load, so a collision costs a rebuild, never a stale index (and no hashlib import). The folders are
    named once, in the first part; each file by its name in its folder (a case by its folder's name), each
    folder's files after a ``|/`` that starts it.
    """
    parts = [f"{INDEX_FORMAT}|{__version__}|{sys.version_info[:2]}|{case_root}|{family_root}|{tables_root}"]
    try:
        names = sorted([e.name for e in os.scandir(case_root)])
    except OSError:
        return None
    stat, sep = os.stat, os.sep
    for name in names:
        try:
            st = stat(f"{case_root}{sep}{name}{sep}{CASE_FILE}")
        except OSError:
            continue
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    for where in (family_root, tables_root):
        parts.append("/")
        try:
            names = sorted([e.name for e in os.scandir(where) if e.name.endswith((".md", ".toml"))])
        except OSError:
            continue
        for name in names:
            try:
                st = stat(f"{where}{sep}{name}")
            except OSError:
                continue
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts)


_LAST: list[tuple[str, Knowledge]] = []  # (turn 48) the knowledge load_index gave this process last, under its key


def load_index(root: Path | str | None = None, families: Path | str | None = None, *, reuse: bool = False) -> Knowledge:
    """The knowledge, from the cache when it is current, else loaded, checked and cached.

    ``reuse``: for a caller that only reads it (the planner's case titles, kb/plan/refs.py, in the run of `kb diagnose`
    that loaded it): the very object this process was given last when the files' key (every knowledge file's name,
    size and mtime, read again now) is the same, instead of another read of the cache and another model (~1 ms)."""
    parents: dict[str, str] = {}
    case_root = _realpath(os.fspath(root) if root is not None else cases_root(), parents)
    family_root = _realpath(os.fspath(families) if families is not None else families_root(), parents)
    tables_root = _realpath(folder("tables"), parents)
    key = index_key(case_root, family_root, tables_root)
    if key is None:  # no cases folder: nothing to cache
        return _build(build_entries(case_root, family_root))
    if reuse and _LAST and _LAST[0][0] == key:
        return _LAST[0][1]
    knowledge = _load_keyed(case_root, family_root, tables_root, key)
    _LAST[:] = [(key, knowledge)]
    return knowledge


def _load_keyed(case_root: str, family_root: str, tables_root: str, key: str) -> Knowledge:
    """load_index's knowledge for the files whose key is ``key``."""
    where = _cache_dir()
    if where is None or not _safe_dir(where):  # no cache rather than one another user could plant
        return _build(build_entries(case_root, family_root))
    cache = _cache_file(where, key)

    def rebuild() -> dict[str, Any]:  # a piece failed its check: the index afresh, written under the files' key now
        entries = build_entries(case_root, family_root)
        now = index_key(case_root, family_root, tables_root)
        if now is not None:
            _write_cache(_cache_file(where, now), now, entries)
        return entries

    knowledge = _from_head(_read_head(cache, key, rebuild))
    if knowledge is not None and (knowledge.cases or knowledge.families):  # an empty one: load_all says why
        return knowledge
    entries = build_entries(case_root, family_root)
    _write_cache(cache, key, entries)
    return _build(entries)


def _realpath(path: str, parents: dict[str, str]) -> str:
    """``os.path.realpath(path)``, resolving a parent the knowledge's folders share once (realpath lstats every
    component of every path): the parent's real path joined to the last component, when that is no link."""
    if not os.path.isabs(path) or os.path.normpath(path) != path or os.path.islink(path):
        return os.path.realpath(path)  # (a ".." after a link is resolved by realpath, not by normpath)
    parent, name = os.path.split(path)
    if parent not in parents:
        parents[parent] = os.path.realpath(parent)
    return os.path.join(parents[parent], name)


def _cache_file(where: str, key: str) -> str:
    return os.path.join(where, f"signatures-{checksum(key.encode()) & 0xFFFFFFFF:08x}.marshal")


def _build(entries: dict[str, Any], pieces: Pieces | None = None) -> Knowledge:
    """The model from entries: built ones (their parts as bytes) or a verified head's (parts read via ``pieces``)."""
    tables = entries["tables"]
    if pieces is not None:  # a head's: the sections of LAZY_TABLES are marshal bytes (_well_formed checked them)
        tables = {name: LazyTable(t) if name in LAZY_TABLES else t for name, t in tables.items()}
    LOADED_TABLES.update(tables)  # read_table and redaction (tables/secrets.toml) read them from here, without TOML
    source, min_word, reach = entries["screen"]
    _SCREEN[:] = [(tables["secrets"], source, min_word, reach)] if "secrets" in tables else []
    return IndexedKnowledge(
        tuple(IndexedCase(LazyMeta(meta, signatures, rest, pieces), file, literals, alternatives)
              for file, meta, literals, signatures, rest, alternatives in entries["cases"]),
        tuple(IndexedFamily(LazyMeta(meta, signatures, rest, pieces), file, literals, alternatives)
              for file, meta, literals, signatures, rest, alternatives in entries["families"]),
        entries["meanings"],
        tables,
        frozenset(entries["leading"]),
        tuple(entries["literals"]),
        entries.get("prior_literals", {}),
    )


_PREFIX = 12  # the head's checksum and its length


def _read_head(cache: str, key: str, rebuild: Callable[[], dict[str, Any]]) -> Pieces | None:
    """The file's verified head (this user's, not a link, its checksum, its key, its shape) with the descriptor its
    pieces are read from, else None."""
    fd = open_private(cache)
    if fd is None:
        return None
    pieces = None
    try:
        size = os.fstat(fd).st_size
        prefix = pread(fd, _PREFIX, 0)
        length = int.from_bytes(prefix[8:], "big")
        # (a length past the file's end is damage: never a read, nor a buffer, of that size)
        head = pread(fd, length, _PREFIX) if len(prefix) == _PREFIX and _PREFIX + length <= size else b""
        if len(head) == length and int.from_bytes(prefix[:8], "big") == checksum(head):
            stored = marshal.loads(head)
            if isinstance(stored, dict) and stored.get("key") == key and _well_formed(stored.get("entries"), True):
                pieces = Pieces(fd, _PREFIX + length, size, stored["entries"], rebuild, checksum)
    except (OSError, ValueError, EOFError, TypeError):
        pass
    if pieces is None:
        os.close(fd)
    return pieces


def open_private(path: str) -> int | None:
    """A read-only descriptor of ``path`` when it is a regular file (opened without following a link) that this
    user owns and no one else may write; else None. (The regex cache too: kb/knowledge/precompiled.py.)"""
    try:
        # (O_NONBLOCK: a FIFO planted under the file's name would block the open until someone writes to it; for a
        # regular file the flag changes nothing)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_mode & _S_IFMT == _S_IFREG and _private(st):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _well_formed(entries: Any, refs: bool = False) -> bool:
    """Whether entries have the shape build_entries gives them (``refs``: a head's, each entry's two parts
    (offset, length, checksum) of a piece)."""
    if not isinstance(entries, dict) or not isinstance(entries.get("meanings"), dict):
        return False
    if not isinstance(entries.get("leading"), list):
        return False
    literals = entries.get("literals")
    if not isinstance(literals, list) or not all(type(x) is str for x in literals):
        return False
    screen = entries.get("screen")
    if not (type(screen) is list and len(screen) == 3 and type(screen[0]) is str and type(screen[1]) is int
            and type(screen[2]) is list and all(type(r) is list and len(r) == 3 for r in screen[2])):
        return False
    if not isinstance(entries.get("tables"), dict) or not all(isinstance(t, dict) for t in entries["tables"].values()):
        return False
    prior_literals = entries.get("prior_literals", {})  # (entries built by hand, as some tests do, may lack them)
    if not (type(prior_literals) is dict and all(type(k) is str and type(v) is list and v
                                                 and all(type(x) is str for x in v) for k, v in prior_literals.items())):
        return False
    if refs and not all(type(v) is bytes for name in LAZY_TABLES for v in entries["tables"].get(name, {}).values()):
        return False
    for kind in ("cases", "families"):
        items = entries.get(kind)
        if not isinstance(items, list):
            return False
        for item in items:
            if not (isinstance(item, list) and len(item) == 6 and isinstance(item[0], str)
                    and isinstance(item[1], dict) and isinstance(item[2], list) and isinstance(item[5], list)
                    and len(item[5]) == len(item[2])):
                return False
            if refs:
                if not (_is_ref(item[3]) and _is_ref(item[4])):
                    return False
            elif not (isinstance(item[3], bytes) and isinstance(item[4], bytes)):
                return False
    return True


def _is_ref(ref: Any) -> bool:
    if type(ref) is not tuple or len(ref) != 3:
        return False
    offset, length, crc = ref  # (spelled out, not a generator: ~140 refs at each load)
    return type(offset) is int and type(length) is int and type(crc) is int and offset >= 0 and length >= 0 and crc >= 0


def _from_head(pieces: Pieces | None) -> Knowledge | None:
    """The model built from a verified head; None when it does not build (then the cache is rebuilt)."""
    if pieces is None:
        return None
    try:
        return _build(pieces.entries, pieces)
    except Exception:  # noqa: BLE001 - a cache that does not build is rebuilt from the files, whatever the reason
        return None


def _write_cache(cache: str, key: str, entries: dict[str, Any]) -> None:
    """Write the cache file (kb/knowledge/index_build.py, imported only then)."""
    from kb.knowledge.index_build import write_cache

    write_cache(cache, key, entries)
