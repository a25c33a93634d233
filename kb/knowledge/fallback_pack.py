"""The learned fallback's model (tables/fallback-model.json.gz) packed in the cache folder, for `kb diagnose`'s start-up.

Reading the gzip'd JSON model is ~0.25 s of CPU (5.7 MB of JSON: 30,000 terms, their weights, 2,146 evidence
reports), paid by every `kb diagnose` that reaches the fallback: an error no signature and no prior answers, a one-line
``ValueError`` of the user's own say. A diagnosis reads only the weights of the document's own terms (tens to a few
thousand of the 30,000), and the evidence reports only when the model answers. So the model is packed once (the first
run that needs it, after any change of the file) into one cache file of flat arrays read as they are, without building
an object per number:

- a head (marshal): the key (the model file's real path, size and mtime, the Python version, the byte order, FORMAT),
  the small fields (classes, intercepts, scale, threshold, ...) and where each array lies;
- the terms' 64-bit checksums, sorted (a term is found by bisection, then its UTF-8 bytes compared), each one's index;
- per term: its UTF-8 bytes, its idf, and its non-zero weights as (class, weight) pairs, in the JSON's order;
- the evidence reports (labels, URLs, heaviest terms: marshal), read and checked only when asked for.

The file is verified before it is used (its checksum, its key, its shape), under the cache's rules (this user's, not
a link, writable by no one else: kb/knowledge/index.py open_private; written through mkstemp). Anything unexpected:
the JSON is read as before. The numbers are the JSON's own (IEEE doubles and ints kept as such), in the same order,
so the verdicts are the same to the last bit (tests/test_startup_fallback.py).
"""

from __future__ import annotations

import marshal
import os

from kb.knowledge import packed_cache
from kb.knowledge.precompiled import checksum

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
MAX_BYTES = 64 << 20  # a packed file past this (the shipped model packs to ~6 MB) is neither written nor read whole
PACKED_KEYS = ("vocabulary", "idf", "weights", "labels", "urls", "vectors")  # the rest of the model is the head's
_PREFIX = 32  # checksum of the main part, its length, checksum of the evidence piece, its length (8 bytes each)
# the arrays of the main part: (name, memoryview format); each starts at a multiple of 8 bytes
_ARRAYS = (("hashes", "Q"), ("order", "I"), ("term_at", "I"), ("terms", "B"), ("idf", "d"), ("row_at", "I"),
           ("classes", "H"), ("weights", "d"))


def term_hash(term: str) -> int:
    """A term's 64-bit checksum, the same in every process (the sorted table's key)."""
    return checksum(term.encode("utf-8", "surrogatepass"))


class PackedModel:
    """The packed model's arrays (memoryviews over the file's bytes) and its small fields."""

    def __init__(self, small: dict[str, Any], arrays: dict[str, memoryview], fd: int, evidence: tuple[int, int, int]):
        self.small = small
        self.hashes, self.order, self.term_at = arrays["hashes"], arrays["order"], arrays["term_at"]
        self.terms, self.idf, self.row_at = arrays["terms"], arrays["idf"], arrays["row_at"]
        self.classes, self.weights = arrays["classes"], arrays["weights"]
        self._fd, self._evidence = fd, evidence

    def lookup(self, term: str) -> int | None:
        """The term's index in the model's vocabulary, or None when the model lacks it."""
        from bisect import bisect_left

        raw = term.encode("utf-8", "surrogatepass")
        h = checksum(raw)
        hashes, order, at, terms = self.hashes, self.order, self.term_at, self.terms
        k = bisect_left(hashes, h)
        while k < len(hashes) and hashes[k] == h:
            i = order[k]
            if terms[at[i]:at[i + 1]] == raw:
                return i
            k += 1
        return None

    def row(self, i: int) -> list[Any]:
        """Term ``i``'s weights as the JSON has them: ``[class, weight, class, weight, ...]``."""
        a, b = self.row_at[i], self.row_at[i + 1]
        flat: list[Any] = [0] * (2 * (b - a))
        flat[0::2] = self.classes[a:b].tolist()
        flat[1::2] = self.weights[a:b].tolist()
        return flat

    def evidence(self) -> tuple[list[str], list[str], list[list[list[Any]]]] | None:
        """(labels, urls, vectors), read and checked now; None when the piece fails its check."""
        offset, length, crc = self._evidence
        try:
            piece = packed_cache.read_checked(self._fd, offset, length, crc)
            if piece is None:
                return None
            labels, urls, vectors = marshal.loads(piece)
        except (OSError, ValueError, EOFError, TypeError):
            return None
        return labels, urls, vectors


def model_key(path: str) -> str | None:
    """The cache key of the model file at ``path`` (None when it cannot be stat'ed)."""
    return packed_cache.file_key(path, FORMAT)


def cached_model(path: str) -> PackedModel | dict[str, Any] | None:
    """The packed model of the file at ``path`` from the cache folder, packing it there first when it is missing or
    stale. When it cannot be had packed: the JSON's data where this call had to read it (a folder it could not write
    to, a model the packed form cannot keep), so that the caller does not read it again; None when there is no usable
    cache folder (the caller reads the JSON)."""
    found, key, cache = packed_cache.look_up(path, FORMAT, "fallback", read_packed)
    if found is not None or key is None or cache is None:
        return found
    from kb.knowledge.tables import read_fallback_model

    model = read_fallback_model(path)
    data = pack(key, model)
    if data is None:
        return model
    packed_cache.write(cache, data)
    found = read_packed(cache, key)
    return found if found is not None else model


def read_packed(cache: str, key: str) -> PackedModel | None:
    """The verified packed model in ``cache`` under ``key``, else None."""
    opened = packed_cache.open_trusted(cache, MAX_BYTES)
    if opened is None:
        return None
    fd, size = opened
    try:
        prefix = packed_cache.pread(fd, _PREFIX, 0)
        if len(prefix) == _PREFIX:
            crc, length, evidence_crc, evidence_length = (int.from_bytes(prefix[i:i + 8], "little")
                                                          for i in range(0, _PREFIX, 8))
            if _PREFIX + length + evidence_length == size:
                main = packed_cache.read_checked(fd, _PREFIX, length, crc)
                if main is not None:
                    found = _unpack(main, key, fd, (_PREFIX + length, evidence_length, evidence_crc))
                    if found is not None:
                        return found  # (the descriptor stays open: the evidence piece is read from it on demand)
    except (OSError, ValueError, EOFError, TypeError, IndexError):
        pass
    os.close(fd)
    return None


def _unpack(main: bytes, key: str, fd: int, evidence: tuple[int, int, int]) -> PackedModel | None:
    head_length = int.from_bytes(main[:8], "little")
    head = marshal.loads(main[8:8 + head_length])
    if not (type(head) is dict and head.get("key") == key and type(head.get("small")) is dict
            and type(head.get("arrays")) is dict and type(head.get("n")) is int and type(head.get("pairs")) is int):
        return None
    n, pairs = head["n"], head["pairs"]
    view = memoryview(main)
    arrays: dict[str, memoryview] = {}
    for name, code in _ARRAYS:
        where = head["arrays"].get(name)
        if not (type(where) is tuple and len(where) == 2 and all(type(x) is int and x >= 0 for x in where)):
            return None
        start, length = where
        if start % 8 or start + length > len(main):
            return None
        arrays[name] = view[start:start + length].cast(code)
    expected = {"hashes": n, "order": n, "term_at": n + 1, "idf": n, "row_at": n + 1, "classes": pairs,
                "weights": pairs}
    if any(len(arrays[name]) != count for name, count in expected.items()):
        return None
    if arrays["term_at"][n] != len(arrays["terms"]) or arrays["row_at"][n] != pairs:
        return None
    return PackedModel(head["small"], arrays, fd, evidence)


def pack(key: str, data: dict[str, Any]) -> bytes | None:
    """The cache file's bytes for the model ``data`` (read_fallback_model's), or None when it holds what the packed
    form cannot keep exactly (a class that is not a small int, a weight or an idf that is not a float)."""
    from array import array

    vocabulary, idf, weights = data["vocabulary"], data["idf"], data["weights"]
    if not (all(type(t) is str for t in vocabulary) and all(type(x) is float for x in idf)):
        return None
    term_bytes = [t.encode("utf-8", "surrogatepass") for t in vocabulary]
    hashes = sorted((checksum(raw), i) for i, raw in enumerate(term_bytes))
    term_at, row_at, classes, values = [0], [0], [], []
    for raw in term_bytes:
        term_at.append(term_at[-1] + len(raw))
    for flat in weights:
        if type(flat) is not list or len(flat) % 2:
            return None
        cs, ws = flat[0::2], flat[1::2]
        if not all(type(c) is int and 0 <= c < 1 << 16 for c in cs) or not all(type(w) is float for w in ws):
            return None
        classes.extend(cs)
        values.extend(ws)
        row_at.append(row_at[-1] + len(cs))
    if term_at[-1] >= 1 << 32 or row_at[-1] >= 1 << 32:
        return None
    blobs = {"hashes": array("Q", [h for h, _ in hashes]).tobytes(), "order": array("I", [i for _, i in hashes]).tobytes(),
             "term_at": array("I", term_at).tobytes(), "terms": b"".join(term_bytes), "idf": array("d", idf).tobytes(),
             "row_at": array("I", row_at).tobytes(), "classes": array("H", classes).tobytes(),
             "weights": array("d", values).tobytes()}
    small = {k: v for k, v in data.items() if k not in PACKED_KEYS}
    head_of = {"key": key, "small": small, "n": len(vocabulary), "pairs": len(values), "arrays": {}}
    # the head holds the arrays' places, which follow the head: laid out until they agree (marshal writes each offset in
    # a fixed size, so the second layout is the last)
    for _ in range(4):
        head = marshal.dumps(head_of)
        at = _align(8 + len(head))
        places = {}
        for name, _code in _ARRAYS:
            places[name] = (at, len(blobs[name]))
            at = _align(at + len(blobs[name]))
        if places == head_of["arrays"]:
            break
        head_of["arrays"] = places
    head = marshal.dumps(head_of)
    parts = [len(head).to_bytes(8, "little"), head]
    at = 8 + len(head)
    for name, _code in _ARRAYS:
        start, length = head_of["arrays"][name]
        if start < at:
            return None
        parts.append(b"\0" * (start - at))
        parts.append(blobs[name])
        at = start + length
    main = b"".join(parts)
    piece = marshal.dumps([data["labels"], data["urls"], data["vectors"]])
    if _PREFIX + len(main) + len(piece) > MAX_BYTES:
        return None
    prefix = b"".join(x.to_bytes(8, "little") for x in (checksum(main), len(main), checksum(piece), len(piece)))
    return prefix + main + piece


def _align(at: int) -> int:
    return (at + 7) // 8 * 8
