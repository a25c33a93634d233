"""The API history (tables/api-history.json.gz) packed in the cache folder, for `kb diagnose`'s start-up.

Every `kb diagnose` whose error reaches the API-drift stage (kb/diagnose/drift.py: a `'NoneType' object has no
attribute`, a `No module named 'peft'`, any import or keyword error) loaded the history: the gunzip of 1.1 MB and the
JSON parse of its 1.5 MB outer document (the sections are base64 texts of zlib'd JSON inside it), ~45-75 ms here, before
one lookup; then each section it reads was base64-decoded, inflated and parsed (transformers' exports: ~16 ms). So the
history is packed once (the first run that needs it after any change of the file) into one cache file:

- a prefix: the head's checksum and length;
- a head (marshal): the key (the history file's real path, size and mtime, the Python version, the byte order,
  FORMAT), the outer document's small tables (the version index, model types, rope), each library's sections in the
  file's order, a small section's value itself, a big one's (offset, length, checksum) in the rest of the file;
- each big section as marshal of its parsed JSON, read by pread, checked and loaded on its first lookup only;
- (turn 47) a name index in INDEX_BUCKETS pieces per kind, each loaded on its first lookup: the classes by their last
  name (members and enums), the libraries exporting a name, the classes whose members hold a name. A lookup of a name
  then reads only the sections of the libraries that hold it ("'LlavaQwenModel' object has no attribute
  '_update_causal_mask'" read every library's members and exports, ~6 MB, to learn that no release has the class).

The values are the JSON's own (str, int, float, bool, None, lists and dicts in their order): marshal keeps them
exactly, so every lookup answers the same. The file is trusted under the cache's rules (this user's, not a link,
writable by no one else: kb/knowledge/index.py open_private; written through mkstemp); a head or a piece that fails its
check is not used (kb/apidrift/history.py then reads the JSON, as before).
"""

from __future__ import annotations

import marshal
import os

from kb.knowledge import packed_cache
from kb.knowledge.precompiled import checksum

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

FORMAT = 3  # 3: the name index (turn 47)
TABLE_FORMAT = 1  # marshal_copy's
INDEX_BUCKETS = 64  # a name's bucket: the low bits of its checksum (the same in every process)
INDEXES = ("classes", "exports", "members")
MAX_BYTES = 256 << 20  # a packed file past this (the shipped history packs to ~7 MB) is neither written nor read
MAX_HEAD = 8 << 20  # nor one whose head is past this (the shipped head: ~40 KB)
_PREFIX = 16  # the head's checksum, its length (8 bytes each)
HISTORY = "api-history.json.gz"  # kb.knowledge.tables' API_HISTORY (tables.py imports tomllib: not on this path)


class DamagedPiece(Exception):
    """A piece of the packed file that fails its check: the caller reads the JSON instead."""


class Piece:
    """A big section of one library's table, in the packed file: loaded and checked on first use."""

    __slots__ = ("_fd", "_offset", "_length", "_crc")

    def __init__(self, fd: int, offset: int, length: int, crc: int) -> None:
        self._fd, self._offset, self._length, self._crc = fd, offset, length, crc

    def load(self) -> Any:
        """The section's value; DamagedPiece when the bytes read are not the ones packed."""
        try:
            data = packed_cache.read_checked(self._fd, self._offset, self._length, self._crc)
            if data is None:
                raise DamagedPiece(self._offset)
            return marshal.loads(data)
        except (OSError, ValueError, EOFError, TypeError):
            raise DamagedPiece(self._offset) from None


class PackedHistory(dict):
    """The packed history's outer tables and libraries (the JSON's keys, in its order), with its name index."""

    names: NameIndex | None = None


def bucket(name: str) -> int:
    """The index bucket of ``name``."""
    return checksum(name.encode("utf-8", "surrogatepass")) % INDEX_BUCKETS


class NameIndex:
    """The packed file's name index: ``get(kind, name)`` loads the name's bucket of that kind on first use (a
    DamagedPiece when it fails its check). (turn 50) Each bucket's row of the head (offset, length, checksum) is checked
    and made a Piece on the bucket's first use too, not all 193 at load: ~1.4 million instructions of each run that
    loads the history (a lookup asks one or two buckets). A row out of shape is a DamagedPiece, as a bucket whose bytes
    fail their check is."""

    def __init__(self, rows: dict[str, list[Any]], paths: Any, fd: int, base: int, size: int) -> None:
        """``rows``: each kind's INDEX_BUCKETS rows as the head has them, ``paths`` the member paths' row; ``base``:
        where the pieces start in the file of ``size`` bytes open at ``fd``."""
        self._rows, self._fd, self._base, self._size = rows, fd, base, size
        self._loaded: dict[tuple[str, int], dict] = {}
        self._paths: Any = paths  # (a row, then its Piece's dict once loaded)

    def piece(self, kind: str, at: int) -> Piece:
        """Bucket ``at`` of ``kind`` (kind "paths": the member paths' piece)."""
        row = self._paths if kind == "paths" else self._rows[kind][at]
        if not (type(row) is tuple and len(row) == 3 and all(type(x) is int and x >= 0 for x in row)
                and self._base + row[0] + row[1] <= self._size):
            raise DamagedPiece(kind)
        return Piece(self._fd, self._base + row[0], row[1], row[2])

    def member_paths(self) -> dict[str, list[str]]:
        """{library: the class paths of its members table, in the table's order} (a library without one: [])."""
        if type(self._paths) is not dict:
            found = self.piece("paths", 0).load()
            if type(found) is not dict:
                raise DamagedPiece("paths")
            self._paths = found
        return self._paths

    def get(self, kind: str, name: str) -> list:
        """What the index holds for ``name``: classes, [(library, class path)] of those whose last name it is;
        exports, [library] of those a module of which exports it in some release; members, [(library, class path)]
        of those that have it in some release. Each in the sections' order."""
        at = (kind, bucket(name))
        found = self._loaded.get(at)
        if found is None:
            found = self.piece(kind, at[1]).load()
            if type(found) is not dict:
                raise DamagedPiece(kind)
            self._loaded[at] = found
        if kind != "members":
            return list(found.get(name, ()))
        paths = self.member_paths()  # (a member's classes are kept as their places in these lists: ~40% of the file)
        try:
            return [(lib, paths[lib][i]) for lib, i in found.get(name, ())]
        except (KeyError, IndexError, TypeError, ValueError):
            raise DamagedPiece(kind) from None


def name_index(sections: dict[str, dict[str, tuple[Any, bool]]]) -> dict[str, list[dict[str, list]]] | None:
    """The name index's buckets for each kind (see NameIndex.get), and under "paths" one bucket of each library's
    member class paths (NameIndex.member_paths), from the inflated sections; None where a section has a shape the
    index does not know (no index then: History scans the sections, as before)."""
    index: dict[str, dict[str, dict]] = {kind: {} for kind in INDEXES}
    member_paths: dict[str, list[str]] = {}

    def add(kind: str, name: str, value: Any) -> None:
        index[kind].setdefault(name, {})[value] = None

    for lib, entry in sections.items():
        for table in ("members", "enums"):
            paths = entry.get(table, ({}, False))[0]
            if type(paths) is not dict or not all(type(p) is str for p in paths):
                return None
            for path in paths:
                add("classes", path.rsplit(".", 1)[-1], (lib, path))
        exports = entry.get("exports", ({}, False))[0]
        if type(exports) is not dict or not all(type(t) is dict for t in exports.values()):
            return None
        for table in exports.values():
            for names in table.values():
                if type(names) is not str:
                    return None
                for name in names.split():
                    add("exports", name, lib)
        members = entry.get("members", ({}, False))[0]
        if type(members) is not dict:
            return None
        member_paths[lib] = list(members)
        for i, record in enumerate(members.values()):
            ranges = record.get("names") if type(record) is dict else None
            if type(ranges) is not dict or not all(type(n) is str for n in ranges.values()):
                return None
            for names in ranges.values():
                for name in names.split():
                    add("members", name, (lib, i))
    buckets: dict[str, list[dict[str, list]]] = {}
    for kind, found in index.items():
        rows: list[dict[str, list]] = [{} for _ in range(INDEX_BUCKETS)]
        for name, values in found.items():
            rows[bucket(name)][name] = list(values)
        buckets[kind] = rows
    buckets["paths"] = [member_paths]
    return buckets


def shipped_path() -> str:
    """The shipped history's path (tables/api-history.json.gz of the knowledge root)."""
    from kb.knowledge.paths import folder

    return os.path.join(folder("tables"), HISTORY)


def history_key(path: str) -> str | None:
    """The cache key of the history file at ``path`` (None when it cannot be stat'ed)."""
    return packed_cache.file_key(path, FORMAT)


STEM = "api-history"  # the packed copy's name in the cache folder: api-history-XXXXXXXX.bin


def cached_history(path: str, inflate: Callable[[Any], tuple[Any, bool]]) -> dict[str, Any] | None:
    """The history at ``path`` as {outer tables..., "libraries": {lib: {section: value or Piece}}}: from the packed
    copy in the cache folder, packing it there first when it is missing or stale (that run gets the JSON's values,
    inflated). ``inflate``: a stored section -> (its value, whether it is packed in the JSON: a big one).
    None where there is no usable cache folder, or the JSON's layout is not one this form keeps (the caller reads the
    JSON then)."""
    found, key, cache = packed_cache.look_up(path, FORMAT, STEM, read_packed)
    if found is not None or key is None or cache is None:
        return found
    from kb.knowledge.tables import read_api_history

    data = read_api_history(path)
    libraries = data.get("libraries") if type(data) is dict else None
    if type(libraries) is not dict or not all(type(entry) is dict for entry in libraries.values()):
        return None  # (the first v2 builds: a library packed whole; History reads that form itself)
    sections = {lib: {section: inflate(value) for section, value in entry.items()} for lib, entry in libraries.items()}
    packed = pack(key, {k: v for k, v in data.items() if k != "libraries"}, sections, list(data), name_index(sections))
    if packed is not None:
        packed_cache.write(cache, packed)
    inflated = {lib: {s: value for s, (value, _big) in entry.items()} for lib, entry in sections.items()}
    return {k: inflated if k == "libraries" else v for k, v in data.items()}


def pack(key: str, outer: dict[str, Any], sections: dict[str, dict[str, tuple[Any, bool]]],
         order: list[str] | None = None, names: dict[str, list[dict[str, list]]] | None = None) -> bytes | None:
    """The cache file's bytes: ``outer`` (the document's tables but "libraries") and each library's sections, a big one
    (``(value, True)``) as a piece of its own; ``order``: the document's keys in its order ("libraries" among them);
    ``names``: name_index's buckets, each a piece of its own (None: no index). None when a value is not one marshal
    keeps (not JSON's)."""
    pieces: list[bytes] = []
    at = 0
    libraries: dict[str, list[tuple[str, int, Any]]] = {}
    try:
        for lib, entry in sections.items():
            rows = libraries[lib] = []
            for section, (value, big) in entry.items():
                if big:
                    data = marshal.dumps(value)
                    rows.append((section, 1, (at, len(data), checksum(data))))
                    pieces.append(data)
                    at += len(data)
                else:
                    rows.append((section, 0, value))
        index: dict[str, list[tuple[int, int, int]]] | None = None
        if names is not None:
            index = {}
            for kind, rows in names.items():
                index[kind] = []
                for row in rows:
                    data = marshal.dumps(row)
                    index[kind].append((at, len(data), checksum(data)))
                    pieces.append(data)
                    at += len(data)
        order = order if order is not None else [*outer, "libraries"]
        head = marshal.dumps({"key": key, "outer": outer, "libraries": libraries, "order": order, "names": index})
    except ValueError:  # (an object marshal cannot write)
        return None
    if len(head) > MAX_HEAD or _PREFIX + len(head) + at > MAX_BYTES:
        return None
    return checksum(head).to_bytes(8, "little") + len(head).to_bytes(8, "little") + head + b"".join(pieces)


def read_packed(cache: str, key: str) -> dict[str, Any] | None:
    """The verified head of the packed history in ``cache`` under ``key`` (big sections as Pieces), else None."""
    opened = packed_cache.open_trusted(cache, MAX_BYTES)
    if opened is None:
        return None
    fd, size = opened
    try:
        prefix = packed_cache.pread(fd, _PREFIX, 0)
        if len(prefix) == _PREFIX:
            crc, length = int.from_bytes(prefix[:8], "little"), int.from_bytes(prefix[8:], "little")
            if _PREFIX + length <= size and length <= MAX_HEAD:
                head = packed_cache.read_checked(fd, _PREFIX, length, crc)
                if head is not None:
                    found = _unpack(marshal.loads(head), key, fd, _PREFIX + length, size)
                    if found is not None:
                        return found  # (the descriptor stays open: the pieces are read from it on first use)
    except (OSError, ValueError, EOFError, TypeError):
        pass
    os.close(fd)
    return None


def _unpack(head: Any, key: str, fd: int, base: int, size: int) -> dict[str, Any] | None:
    if not (type(head) is dict and head.get("key") == key and type(head.get("outer")) is dict
            and type(head.get("libraries")) is dict and "libraries" not in head["outer"]
            and type(head.get("order")) is list and sorted(head["order"]) == sorted([*head["outer"], "libraries"])):
        return None
    libraries: dict[str, dict[str, Any]] = {}
    for lib, rows in head["libraries"].items():
        if type(lib) is not str or type(rows) is not list:
            return None
        entry = libraries[lib] = {}
        for row in rows:
            if not (type(row) is tuple and len(row) == 3 and type(row[0]) is str and row[1] in (0, 1)):
                return None
            section, big, value = row
            if big:
                if not (type(value) is tuple and len(value) == 3 and all(type(x) is int and x >= 0 for x in value)
                        and base + value[0] + value[1] <= size):
                    return None
                value = Piece(fd, base + value[0], value[1], value[2])
            entry[section] = value
    found = PackedHistory((k, libraries if k == "libraries" else head["outer"][k]) for k in head["order"])
    names = head.get("names")
    if names is not None:
        if not (type(names) is dict and sorted(names) == sorted([*INDEXES, "paths"])
                and all(type(rows) is list and len(rows) == (1 if kind == "paths" else INDEX_BUCKETS)
                        for kind, rows in names.items())):
            return None
        rows = {kind: names[kind] for kind in INDEXES}  # (each row checked on its bucket's first use: NameIndex)
        found.names = NameIndex(rows, names["paths"][0], fd, base, size)
    return found


COPY_MAX_BYTES = 64 << 20  # a marshal copy past this (the side tables: ~1-4 MB) is neither written nor read


def marshal_copy(path: str, read: Callable[[], Any]) -> Any:
    """The JSON value of the file at ``path`` (``read()`` parses it), from its marshal copy in the cache folder when that
    is there under the file's key (real path, size, mtime, the Python version, FORMAT) and passes its checks (the cache's
    rules, its checksum); else ``read()``'s, written there for the next run. The API history's side tables (private
    names, aliases, module state: kb/apidrift/json_table.py) are ~1-4 MB of JSON each, ~20-50 ms to parse (turn 46);
    marshal gives back the same values (str, int, float, bool, None, lists, dicts in their order) in a fraction."""
    return packed_cache.marshal_copy(path, TABLE_FORMAT, "table", COPY_MAX_BYTES, read)
