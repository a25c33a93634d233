"""Read one API-history reproduction (``drift/<lib>-<short-name>/entry.toml``) into plain data.

An entry states one fact of a library's API history (a parameter, an exported name, a module or a
model type that was removed, renamed or added), two programs (``old.py``, ``new.py``), two pin sets
and the error the failing run must raise (``[expect]``: exception type, message regex, and a regex on
the innermost frame's ``"<file>:<function>"``). kb/apidrift/verify.py runs the entries; this module
only reads and checks the file, with the standard library, so every reader of drift/ agrees on it.
Pins are kept as written: checking them is kb.reproduce.pinned's job (the verifier does it).

(turn 49) `kb diagnose`'s API-history answers read these entries (kb/apidrift/answer.py): the values are
kb/knowledge/values.py's Frozen, not dataclasses, and folders are strings (an entry's ``path`` builds its Path
when asked), so such a run imports neither dataclasses (inspect, ast, dis, tokenize) nor pathlib (urllib.parse,
ipaddress) nor re here: ~55 million instructions of the ~500 of drift-61-HoliTom-6's.
"""

from __future__ import annotations

import os

from kb.knowledge.model import KnowledgeError
from kb.knowledge.values import Frozen

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (turn 47: ~3-6 ms of a drift answer's run)
if TYPE_CHECKING:
    import re
    from pathlib import Path
    from typing import Any

ENTRY_FILE = "entry.toml"
# member: a method or attribute of a class (DynamicCache.get_max_length); enum_value: a value an Enum accepts
# (OptimizerNames "adalomo"); default: a parameter default that changed (torch.load weights_only)
KINDS = ("param", "name", "module", "model_type", "config_check", "member", "enum_value", "default")
CHANGE_KEYS = ("removed_in", "renamed_in", "added_in")
REQUIRED_KEYS = ("library", "kind", "owner", "old", "new", "summary", "old_pins", "new_pins", "expect")
PROGRAMS = ("old.py", "new.py")


class EntryError(KnowledgeError):
    """An entry.toml that is incomplete or inconsistent; the message names the file and the problem."""


class DriftExpect(Frozen):
    """The error the failing run must raise: exception type, message regex, innermost frame regex.

    ``frame`` is matched against ``"<file>:<function>"`` of the innermost frame; for an
    argument rejected while Python binds the call, that frame is the caller's (old.py).
    """

    exception: str
    message: re.Pattern[str]
    frame: re.Pattern[str]


class DriftEntry(Frozen):
    """One entry: ``folder`` is its folder as read (``path``: the same as a Path); ``data`` the file's TOML (not
    compared or printed)."""

    folder: str
    library: str
    kind: str
    owner: str
    old: str
    new: str
    change: str  # one of CHANGE_KEYS
    version: str  # the release of the change (first release with the new state)
    old_pins: tuple[str, ...]
    new_pins: tuple[str, ...]
    expected: DriftExpect
    summary: str
    old_works: bool = True
    old_works_note: str = ""
    data: dict[str, Any]
    HIDDEN = ("data",)

    @property
    def path(self) -> Path:
        from pathlib import Path  # (only where a path is asked: the verifier, kb check; not an answer)

        return Path(self.folder)

    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.folder))

    @property
    def direction(self) -> str:
        """"added": the new usage fails on the old release; otherwise the old usage fails on the new one."""
        return "added" if self.change == "added_in" else "removed"


def load_drift_entry(folder: Any, parsed: dict[str, Any] | None = None) -> DriftEntry:
    """Read and check ``<folder>/entry.toml``; raises :class:`EntryError` naming what is wrong. ``parsed``: the file's
    TOML as load_drift_entries read it from the cache folder (the same values), else the file is parsed here."""
    path = os.fspath(folder)
    toml = os.path.join(path, ENTRY_FILE)
    if parsed is not None:
        data = parsed
    else:
        import tomllib  # (turn 46) only for a file the cache does not hold: tomllib imports re and datetime

        try:
            with open(toml, encoding="utf-8") as handle:
                data = tomllib.loads(handle.read())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise EntryError(f"{toml}: {exc}") from exc
    problems = [f"missing {key!r}" for key in REQUIRED_KEYS if key not in data]
    changes = [k for k in CHANGE_KEYS if k in data]
    if len(changes) != 1:
        problems.append(f"exactly one of {', '.join(CHANGE_KEYS)} is required (found {changes or 'none'})")
    if problems:
        raise EntryError(f"{toml}: " + "; ".join(problems))
    from kb.knowledge.tables import libraries

    # tables/libraries.toml: a library the history covers, or one whose imported version a run records (the
    # judge checks that the pinned release was the one imported): huggingface_hub before the history covers it
    known = tuple(dict.fromkeys(libraries("api_history") + libraries("recorded")))
    if data["library"] not in known:
        raise EntryError(f"{toml}: library {data['library']!r} is not one of {', '.join(known)}")
    if data["kind"] not in KINDS:
        raise EntryError(f"{toml}: kind {data['kind']!r} is not one of {KINDS}")
    for side in ("old_pins", "new_pins"):
        if not isinstance(data[side], list) or not all(isinstance(p, str) for p in data[side]):
            raise EntryError(f"{toml}: {side} must be a list of 'name==version' strings")
    expect = data["expect"]
    from kb.knowledge.precompiled import pattern  # (turn 46: the regex cache's; re.compile of ~120 was ~30-60 ms)

    try:
        expected = DriftExpect(str(expect["exception"]), pattern(expect["message"]), pattern(expect["frame"]))
    except Exception as exc:
        import re  # (a regex that does not compile: re was imported to compile it)

        if not isinstance(exc, (KeyError, TypeError, re.error)):
            raise
        raise EntryError(f"{toml}: [expect] needs exception, message and frame regexes ({exc})") from exc
    old_works = data.get("old_works", True)
    for program in PROGRAMS:
        if not os.path.isfile(os.path.join(path, program)):
            raise EntryError(f"{path}: {program} is missing")
    return DriftEntry(
        folder=path, library=data["library"], kind=data["kind"], owner=data["owner"], old=data["old"],
        new=data["new"], change=changes[0], version=str(data[changes[0]]),
        old_pins=tuple(data["old_pins"]), new_pins=tuple(data["new_pins"]), expected=expected,
        summary=data["summary"], old_works=old_works is True,
        old_works_note="" if old_works is True else str(old_works), data=data,
    )


def drift_folders(root: Any = None) -> list[str]:
    """The entry folders under ``root`` (default: the knowledge root's ``drift/``), sorted by name."""
    if root is None:
        from kb.knowledge.paths import folder

        root = folder("drift")
    root = os.fspath(root)
    if not os.path.isdir(root):
        return []
    folders = sorted(os.path.join(root, name) for name in os.listdir(root))
    return [p for p in folders if os.path.isfile(os.path.join(p, ENTRY_FILE))]


PARSED_FORMAT = 1
PARSED_MAX_BYTES = 16 << 20  # a cache file far past what kb writes (~150 KB for ~60 entries) is not kb's: not read


def load_drift_entries(folders: list[str]) -> list[DriftEntry]:
    """load_drift_entry of each folder, those that fail it skipped (kb check names them), with the entry files' TOML
    read from one cache file in the cache folder where each file's size and mtime are the ones recorded there (turn
    46: parsing ~60 entry files with tomllib was ~40-100 ms of a `kb diagnose` whose API-drift answer asks for the
    verified entries). The cache is written once when any file is new or changed; read under the cache's rules (this
    user's, not a link, writable by no one else, its checksum); anything unexpected: the files are parsed."""
    records, cache = _parsed_records(folders)
    found, fresh = [], {}
    for folder in folders:
        toml = os.path.join(folder, ENTRY_FILE)
        stat = _stat(toml)
        record = records.get(toml)
        parsed = None
        if stat is not None and record is not None and record[0] == stat:
            import marshal

            parsed = marshal.loads(record[1])  # (a fresh copy: each entry keeps its own data)
        elif stat is not None:
            import tomllib

            try:
                with open(toml, encoding="utf-8") as handle:
                    parsed = tomllib.loads(handle.read())
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                parsed = None
            if parsed is not None:
                fresh[toml] = (stat, parsed)
        try:
            found.append(load_drift_entry(folder, parsed))
        except EntryError:
            continue
    if fresh and cache is not None:
        _write_records(cache, records, fresh)
    return found


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _parsed_key(folders: list[str]) -> str:
    import sys

    roots = sorted({os.path.realpath(os.path.dirname(os.path.normpath(f))) for f in folders})
    return f"{PARSED_FORMAT}|{sys.version_info[:2]}|{'|'.join(roots)}"


def _parsed_records(folders: list[str]) -> tuple[dict[str, tuple[tuple[int, int], bytes]], tuple[str, str] | None]:
    """The cache file's records ({entry file: ((size, mtime), marshal of its TOML)}) and (its path, its key); ({}, None)
    without a usable cache folder."""
    from kb.knowledge import packed_cache

    where = packed_cache.cache_folder() if folders else None
    if where is None:
        return {}, None
    key = _parsed_key(folders)
    cache = packed_cache.cache_file(where, "drift-entries", key, ".marshal")
    body = packed_cache.read_prefixed(cache, PARSED_MAX_BYTES)
    if body is None:
        return {}, (cache, key)
    import marshal

    try:
        stored = marshal.loads(body)
        records = stored.get("records") if type(stored) is dict and stored.get("key") == key else None
        if type(records) is dict and all(
                type(k) is str and type(v) is tuple and len(v) == 2 and type(v[1]) is bytes
                and type(v[0]) is tuple and len(v[0]) == 2 and all(type(x) is int for x in v[0])
                for k, v in records.items()):
            return records, (cache, key)
    except (ValueError, EOFError, TypeError):
        pass
    return {}, (cache, key)


def _write_records(cache: tuple[str, str], records: dict, fresh: dict[str, tuple[tuple[int, int], Any]]) -> None:
    """The cache file with ``fresh``'s parses added; none written where a value is not one marshal keeps exactly (a
    TOML date: kb's entries have none)."""
    import marshal

    from kb.knowledge import packed_cache

    path, key = cache
    merged = dict(records)
    try:
        for name, (stat, parsed) in fresh.items():
            merged[name] = (stat, marshal.dumps(parsed))
            if marshal.loads(merged[name][1]) != parsed:  # (a value marshal would not give back as it is)
                return
        body = marshal.dumps({"key": key, "records": merged})
    except ValueError:  # (a datetime: not marshal's)
        return
    if len(body) + 8 <= PARSED_MAX_BYTES and packed_cache.writable(os.path.dirname(path)):
        packed_cache.write(path, packed_cache.prefixed(body))
