"""The knowledge model as kb/knowledge/index.py builds it from its cache: the same classes, decoded lazily.

A diagnosis reads a few fields of every case and family (their ids, names, each signature's required
literal) and everything else only of the few entries whose literal occurs in the input, or that it shows.
Decoding the whole index (520 KB of marshal: every signature's regexes, every fix, triage and source) and
building 365 signature objects was a third of `kb diagnose`'s start-up, so the index keeps two parts of
each entry as marshal bytes, decoded on first use:

- its signatures (``meta["signatures"]`` and the ``signatures`` attribute): when a message holds one of
  the entry's literals (kb/diagnose/match.py asks ``literals`` first), or anything reads them;
- the rest of its fields (the fix, triage, sources, reproductions): when one of them is asked for.

Those bytes are either in memory (an index just built) or a piece of the cache file, read when it is decoded
(``Pieces``: one ``pread`` and its checksum, so a run reads the ~14 pieces it uses, not the 620 KB of all of them).
A piece that does not verify is never decoded: the index is rebuilt from the knowledge files (and written
again) and the piece taken from it.

The objects are subclasses of the model's (kb/knowledge/model.py), built through its constructors, and
behave as they do: ``meta`` is a dict (a subclass whose every read decodes what it lacks first: ``[]``,
``get``, ``in``, iteration, ``items``, ``len``, ``==``, ``dict(meta)``, json), ``signatures`` the same tuple.
"""

from __future__ import annotations

import marshal
import os

from kb.knowledge.model import KNOWN_MESSAGE_MIN, Case, Family, Knowledge, Signature, _Entry

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Ref = tuple[int, int, int]  # a piece of the cache file: (offset after the head, length, checksum)

# The fields decoded with the index (every diagnosis reads them of every entry: ranking, families' cases).
EAGER_FIELDS = frozenset({"id", "slug", "name", "family", "status", "api_history"})


def pread(fd: int, length: int, offset: int) -> bytes:
    """``os.pread``; where the platform has none (Windows), a seek and a read."""
    if hasattr(os, "pread"):
        return os.pread(fd, length, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, length)


class Pieces:
    """The per-entry pieces of a verified cache file, read from its open descriptor on demand (kb/knowledge/index.py
    writes the file: a checked head, then the pieces, each with its checksum in the head)."""

    __slots__ = ("fd", "base", "size", "entries", "rebuild", "checksum", "fresh")

    def __init__(self, fd: int, base: int, size: int, entries: dict[str, Any], rebuild: Callable[[], dict[str, Any]],
                 checksum: Callable[[bytes], int]) -> None:
        self.fd, self.base, self.size, self.entries = fd, base, size, entries
        self.rebuild, self.checksum = rebuild, checksum
        self.fresh: dict[str, Any] | None = None  # the entries rebuilt from the knowledge files, once a piece failed

    def load(self, ref: Ref, kind: type) -> Any:
        """The piece decoded, when its checksum holds and it decodes to a ``kind``; else the same piece of the index
        rebuilt from the files."""
        offset, length, crc = ref
        try:  # (a piece past the file's end: never a read, nor a buffer, of that size)
            data = pread(self.fd, length, self.base + offset) if self.base + offset + length <= self.size else b""
        except OSError:
            data = b""
        if len(data) == length and self.checksum(data) == crc:
            try:
                value = marshal.loads(data)
            except (ValueError, EOFError, TypeError):
                value = None
            if type(value) is kind:
                return value
        return marshal.loads(self._repaired(ref))

    def _repaired(self, ref: Ref) -> bytes:
        if self.fresh is None:
            self.fresh = self.rebuild()  # rebuilt and written again (kb/knowledge/index.py)
        for kind in ("cases", "families"):
            for item in self.entries[kind]:
                for slot in (3, 4):
                    if item[slot] is ref:
                        for new in self.fresh[kind]:
                            if new[0] == item[0]:
                                return new[slot]
        from kb.knowledge.model import KnowledgeError

        raise KnowledgeError("the knowledge changed while kb was reading it; run kb again")

    def __del__(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


class _LazyDict(dict):  # type: ignore[type-arg]
    """A dict whose values are decoded from cache bytes on the first read that needs them (LazyMeta, LazyTable): every
    whole-dict read (iteration, views, comparison, copy, repr, pickling) decodes them all first (_decode_all)."""

    __slots__ = ()

    def _decode_all(self) -> None:
        raise NotImplementedError

    def __iter__(self) -> Any:
        self._decode_all()
        return dict.__iter__(self)

    def __eq__(self, other: object) -> bool:
        self._decode_all()
        if isinstance(other, _LazyDict):
            other._decode_all()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def keys(self) -> Any:
        self._decode_all()
        return dict.keys(self)

    def values(self) -> Any:
        self._decode_all()
        return dict.values(self)

    def items(self) -> Any:
        self._decode_all()
        return dict.items(self)

    def copy(self) -> dict[str, Any]:
        self._decode_all()
        return dict(dict.items(self))

    def __repr__(self) -> str:
        self._decode_all()
        return dict.__repr__(self)

    def __reduce__(self) -> Any:  # pickle, copy.deepcopy: a plain dict
        return (dict, (self.copy(),))


class LazyMeta(_LazyDict):
    """A case's or family's normalised dict (kb/knowledge/load.py): EAGER_FIELDS at once; ``signatures`` and
    the rest unmarshalled from the (verified) cache bytes on the first read that needs them: bytes in memory,
    or pieces of the cache file read through ``pieces``."""

    __slots__ = ("_signatures", "_rest", "_pieces")

    def __init__(self, eager: dict[str, Any], signatures: bytes | Ref, rest: bytes | Ref,
                 pieces: Pieces | None = None) -> None:
        super().__init__(eager)
        self._signatures: bytes | Ref | None = signatures
        self._rest: bytes | Ref | None = rest
        self._pieces = pieces

    def _decode(self, part: bytes | Ref, kind: type) -> Any:
        if self._pieces is None:
            return marshal.loads(part)  # type: ignore[arg-type]
        return self._pieces.load(part, kind)  # type: ignore[arg-type]

    def _load(self, key: object = None) -> None:
        """Decode the part that holds ``key`` (both parts when ``key`` is None)."""
        if self._signatures is not None and key in ("signatures", None):
            dict.__setitem__(self, "signatures", self._decode(self._signatures, list))
            self._signatures = None
        if self._rest is not None and key != "signatures":
            dict.update(self, self._decode(self._rest, dict))
            self._rest = None

    def _complete(self) -> bool:
        return self._signatures is None and self._rest is None

    def __missing__(self, key: str) -> Any:
        if not self._complete():
            self._load(key)
            if dict.__contains__(self, key):
                return dict.__getitem__(self, key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        if not self._complete() and not dict.__contains__(self, key):
            self._load(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if not self._complete() and not dict.__contains__(self, key):
            self._load(key)
        return dict.__contains__(self, key)

    def _decode_all(self) -> None:
        self._load()

    def __len__(self) -> int:
        self._load()
        return dict.__len__(self)


# Small tables (tables/*.toml) whose sections the cache's head keeps as marshal bytes, decoded when read: priors.toml's
# error, frame and keyword rules (most of its 66 KB) serve only an input no signature answered; every run reads its
# process rules (kb/diagnose/priors.py LineEvidence). The planner's tables that a diagnosis of an out-of-memory log reads
# (kb/diagnose/oomplan.py through kb/plan) are kept as read, unvalidated (the planner checks what it reads), so that such
# a run parses no TOML (turn 45: tomllib's import and the five files' parsing, ~5-10 ms of its ~100); a run that plans
# nothing decodes none of them.
# (turn 48) tables/secrets.toml's token rules (its ``rule`` section, ~63 KB of the head's marshal: ~0.06-0.1 ms to decode)
# serve only a text that holds one of their keywords or a word as long as a keyword-less rule's shortest (kb/diagnose/
# redact/rules.py screen(), from the head's ``screen``): a run that redacts only short texts without one (a one-line
# error) decodes its key names alone.
PLAN_TABLES = ("plan-names", "plan-models", "plan-constants", "plan-cases", "plan-trainers")
LAZY_TABLES = ("priors", "secrets", *PLAN_TABLES)


class LazyTable(_LazyDict):
    """A small table from the cache's head whose sections (its top-level values) are decoded from their marshal bytes
    on the first read that needs them; otherwise a dict like LazyMeta: every whole-table read or change decodes them
    all first, and then the table holds its sections in the table's order."""

    __slots__ = ("_raw", "_order")

    def __init__(self, raw: dict[str, bytes]) -> None:
        super().__init__()
        self._raw = dict(raw)  # the sections not decoded yet (not in the dict itself)
        self._order = tuple(raw)

    def _one(self, key: str) -> Any:
        value = marshal.loads(self._raw.pop(key))
        dict.__setitem__(self, key, value)
        if not self._raw and tuple(dict.__iter__(self)) != self._order:  # the last one: the table's order
            items = [(k, dict.__getitem__(self, k)) for k in self._order]
            dict.clear(self)
            dict.update(self, items)
        return value

    def _all(self) -> None:
        for key in tuple(self._raw):
            self._one(key)

    def __missing__(self, key: str) -> Any:
        if key in self._raw:
            return self._one(key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key in self._raw:
            return self._one(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._raw or dict.__contains__(self, key)

    def __len__(self) -> int:
        return dict.__len__(self) + len(self._raw)

    def _decode_all(self) -> None:
        self._all()

    # a change (a test's monkeypatch): every section decoded first, then the dict's own
    def __setitem__(self, key: str, value: Any) -> None:
        self._all()
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self._all()
        dict.__delitem__(self, key)

    def pop(self, *args: Any) -> Any:
        self._all()
        return dict.pop(self, *args)

    def popitem(self) -> Any:
        self._all()
        return dict.popitem(self)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._all()
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._all()
        dict.update(self, *args, **kwargs)

    def clear(self) -> None:
        self._raw.clear()
        dict.clear(self)


_SLOT = _Entry.signatures  # the model's slot, behind the lazy property below
_NONE: dict[str, Any] = {"signatures": ()}  # what the model's constructor builds no signature from


class AnyOfSignature(Signature):
    """A signature without a required literal whose every match holds one of ``alternatives`` (kb/knowledge/prefilter.py):
    ``may_match`` rejects a message holding none of them before its regex is compiled or run."""

    __slots__ = ("alternatives",)

    def __init__(self, raw: dict[str, Any], alternatives: list[str]) -> None:
        super().__init__(raw, "")
        self.alternatives = alternatives

    def may_match(self, text: str) -> bool:
        return any(a in text for a in self.alternatives)


class _Lazy:
    """Mixed into Case and Family: ``signatures`` built on first use; ``literals`` and ``may_match`` without
    building them."""

    __slots__ = ()

    def _init(self, meta: LazyMeta, literals: list[str], alternatives: list[list[str]] | None = None) -> None:
        self.meta = meta
        self.literals: tuple[str, ...] = tuple(literals)
        # for each signature without a literal, the literals one of which its every match holds (none: none known)
        self.alternatives: list[list[str]] = alternatives if alternatives is not None else [[] for _ in literals]
        _SLOT.__set__(self, None)

    def may_match(self, text: str) -> bool:
        """Whether one of the entry's signatures may match ``text`` (kb/diagnose/match.py asks before building them):
        its literal is in it, or, for one without, one of its alternatives is, or none is known."""
        for literal, alternatives in zip(self.literals, self.alternatives):
            if literal in text if literal else not alternatives or any(a in text for a in alternatives):
                return True
        return False

    @property
    def signatures(self) -> tuple[Signature, ...]:
        built = _SLOT.__get__(self)
        if built is None:
            built = tuple(AnyOfSignature(s, alternatives) if not lit and alternatives else Signature(s, lit)
                          for s, lit, alternatives in zip(self.meta["signatures"], self.literals, self.alternatives))
            _SLOT.__set__(self, built)
        return built

    @signatures.setter
    def signatures(self, value: tuple[Signature, ...]) -> None:
        _SLOT.__set__(self, value)


class IndexedCase(_Lazy, Case):
    __slots__ = ("literals", "alternatives")

    def __init__(self, meta: LazyMeta, file: str, literals: list[str], alternatives: list[list[str]] | None = None) -> None:
        Case.__init__(self, _NONE, file)
        self._init(meta, literals, alternatives)


class IndexedFamily(_Lazy, Family):
    __slots__ = ("literals", "alternatives")

    def __init__(self, meta: LazyMeta, file: str, literals: list[str], alternatives: list[list[str]] | None = None) -> None:
        Family.__init__(self, _NONE, file)
        self._init(meta, literals, alternatives)


class IndexedKnowledge(Knowledge):
    """The knowledge with the answers of ``literals`` and ``leading_literals`` from the index (they read every
    signature, which would build them all; ``literals()``, every run's trigger words, is computed when the index is
    built: ~0.1 ms a run)."""

    __slots__ = ("_leading", "_literals", "prior_literals")

    def __init__(self, cases: tuple[Case, ...], families: tuple[Family, ...], meanings: dict[str, str],
                 tables: dict[str, dict[str, Any]], leading: frozenset[str],
                 literals: tuple[str, ...] | None = None, prior_literals: dict[str, list[str]] | None = None) -> None:
        super().__init__(cases, families, meanings, tables)
        self._leading = leading
        self._literals = literals  # Knowledge.literals() at its default length, as the index's build computed it
        # {a priors [[error]] rule's message regex: literals one of which its every match holds} (index_build.prior_literals)
        self.prior_literals = prior_literals or {}

    def literals(self, min_length: int = KNOWN_MESSAGE_MIN) -> tuple[str, ...]:
        if min_length == KNOWN_MESSAGE_MIN and self._literals is not None:
            return self._literals
        entries: tuple[Any, ...] = (*self.cases, *self.families)
        return tuple(sorted({lit for e in entries for lit in e.literals if len(lit) >= min_length}))

    def leading_literals(self) -> frozenset[str]:
        return self._leading
