"""The learned fallback's model (tables/fallback-model.json.gz) packed in the cache folder, for `kb diagnose`'s start-up.

Reading the gzip'd JSON model is ~0.25 s of CPU (5.7 MB of JSON: 30,000 terms, their weights, 2,146 evidence
reports), paid by every `kb diagnose` that reaches the fallback: an error no signature and no prior answers, a one-line
``ValueError`` of the user's own say. A diagnosis reads only the weights of the document's own terms (tens to a few
thousand of the 30,000), and the evidence reports only when the model answers. So the model is packed once (the first
run that needs it, after any change of the file) into one cache file whose parts are read and checked as a document
needs them:

- a head (marshal), the file's one part checked at load: the key (the model file's real path, size and mtime, the
  Python version, the byte order, FORMAT), the small fields (classes, intercepts, scale, threshold, ...), and where each
  bucket and each block lies, with its checksum (arrays of 64-bit words);
- the terms in 2 ** BUCKET_BITS buckets by the top bits of their 64-bit checksum, each a checked piece (marshal: per term
  its checksum, its index in the vocabulary, its UTF-8 bytes, its idf and where its non-zero weights lie among the
  (class, weight) pairs), read and checked when a term of the document first falls in it (FORMAT 4, turn 50: these
  were one main part of flat arrays, ~1 MB, checked whole by every run that reached the fallback, ~3 million
  instructions for the ~60 terms of a one-line error); a bucket that fails its check is never used: the model reads
  the JSON from then on (the same numbers, kb/diagnose/fallback.py);
- the pairs, in the JSON's order, in blocks of BLOCK_PAIRS, each with its own checksum (an array in the head): a block
  is read and checked when a term of the document first needs it (FORMAT 2, turn 48: the pairs are 4.3 MB of the
  5.3 MB this part was, read and checked whole by every run that reached the fallback, ~3 ms, for the weights of a
  few terms); a block that fails its check is never used: the model reads the JSON's weights instead (the same
  numbers, kb/diagnose/fallback.py);
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

FORMAT = 4  # 2: the (class, weight) pairs in checked blocks after the main part, read when needed; 3: blocks of 256
# pairs (not 4,096), their checksums one array of 64-bit words in the head (not a list of ints); 4: the terms in checked
# buckets read when needed (not a main part of flat arrays checked whole)
MAX_BYTES = 64 << 20  # a packed file past this (the shipped model packs to ~6 MB) is neither written nor read whole
PACKED_KEYS = ("vocabulary", "idf", "weights", "labels", "urls", "vectors")  # the rest of the model is the head's
_PREFIX = 32  # checksum of the head, its length, checksum of the evidence piece, its length (8 bytes each)
# A term's bucket: the top BUCKET_BITS bits of its checksum. 4,096 buckets of ~7 terms (~400 bytes) for the shipped
# model's 30,000: a one-line error's ~60 terms read ~60 of them, ~25 KB, where the main part was ~1 MB.
BUCKET_BITS = 12
_BUCKET_SHIFT = 64 - BUCKET_BITS
# The pairs' block: BLOCK_PAIRS classes (16 bits each), then as many weights (doubles) from a multiple of 8 bytes: 2.5 KB.
# (The shipped model's ~430,000 pairs make ~1,670 blocks. A term's row is at most a pair per class (~23 pairs), so a
# document's terms need about a block each, scattered: turn 50, "ValueError: foo bar baz qux"'s 38 terms read 16 of
# FORMAT 2's 105 blocks of 4,096 pairs, 640 KB checked (~2.3 million instructions of that run's ~100 million); blocks of
# 256 pairs hold a term's row in one or two, ~100 KB for those terms. Their checksums are one array in the head, as a
# list of ints they would be ~1,700 values to check at each load.)
BLOCK_PAIRS = 256


def term_hash(term: str) -> int:
    """A term's 64-bit checksum, the same in every process (the sorted table's key)."""
    return checksum(term.encode("utf-8", "surrogatepass"))


class DamagedBucket(Exception):
    """A bucket of terms that fails its check: the caller reads the JSON's model instead."""


class PackedModel:
    """The packed model: its small fields, its terms read by bucket and its weights by block as they are asked for."""

    def __init__(self, small: dict[str, Any], n: int, fd: int, buckets: tuple[int, memoryview, memoryview],
                 evidence: tuple[int, int, int], pairs: tuple[int, int, memoryview | list[int]] = (0, 0, [])):
        """``n``: the vocabulary's size; ``buckets``: where the buckets start in the file, their offsets from there
        (BUCKETS + 1) and their checksums; ``pairs``: where the pairs' blocks start in the file, how many pairs there
        are, and each block's checksum."""
        self.small, self.n = small, n
        self._fd, self._evidence = fd, evidence
        self._buckets_at, self._bucket_at, self._bucket_crcs = buckets
        self._pairs_at, self._pairs, self._block_crcs = pairs
        self._terms: dict[int, list[tuple[int, int, bytes, float, int, int]]] = {}  # buckets read so far
        self._blocks: dict[int, tuple[memoryview, memoryview] | None] = {}  # read so far (None: failed its check)
        self.idf: dict[int, float] = {}  # the idf and the pairs' range of each term looked up, by its index
        self._rows: dict[int, tuple[int, int]] = {}

    def lookup(self, term: str) -> int | None:
        """The term's index in the model's vocabulary, or None when the model lacks it (its idf and weights are then
        at hand: ``idf[i]``, ``row(i)``). DamagedBucket when its bucket fails its check."""
        raw = term.encode("utf-8", "surrogatepass")
        h = checksum(raw)
        for stored, i, text, idf, a, b in self._bucket(h >> _BUCKET_SHIFT):
            if stored == h and text == raw:
                if not (type(i) is int and 0 <= i < self.n and type(idf) is float and type(a) is int
                        and type(b) is int and 0 <= a <= b <= self._pairs):
                    raise DamagedBucket(h >> _BUCKET_SHIFT)
                self.idf[i], self._rows[i] = idf, (a, b)
                return i
        return None

    def _bucket(self, k: int) -> list[tuple[int, int, bytes, float, int, int]]:
        """Bucket ``k``'s terms, read and checked on first use."""
        found = self._terms.get(k)
        if found is None:
            start, end = self._bucket_at[k], self._bucket_at[k + 1]
            try:
                piece = packed_cache.read_checked(self._fd, self._buckets_at + start, end - start,
                                                  self._bucket_crcs[k]) if start <= end else None
                found = marshal.loads(piece) if piece is not None else None
            except (OSError, ValueError, EOFError, TypeError):
                found = None
            if not (type(found) is list and all(type(t) is tuple and len(t) == 6 for t in found)):
                raise DamagedBucket(k)
            self._terms[k] = found
        return found

    def row_range(self, i: int) -> tuple[int, int]:
        """Where term ``i``'s (class, weight) pairs lie among the pairs (a term looked up)."""
        return self._rows[i]

    def row(self, i: int) -> list[Any] | None:
        """Term ``i``'s weights as the JSON has them: ``[class, weight, class, weight, ...]`` (a term looked up); None
        when a block they lie in fails its check (the caller reads the JSON's)."""
        a, b = self._rows[i]
        classes: list[int] = []
        weights: list[float] = []
        for k in range(a // BLOCK_PAIRS, (b - 1) // BLOCK_PAIRS + 1 if b > a else 0):
            block = self._block(k)
            if block is None:
                return None
            first = k * BLOCK_PAIRS
            lo, hi = max(a, first) - first, min(b, first + BLOCK_PAIRS) - first
            classes += block[0][lo:hi].tolist()
            weights += block[1][lo:hi].tolist()
        flat: list[Any] = [0] * (2 * (b - a))
        flat[0::2] = classes
        flat[1::2] = weights
        return flat

    def _block(self, k: int) -> tuple[memoryview, memoryview] | None:
        """Block ``k``'s classes and weights, read and checked on first use; None when it fails its check."""
        if k in self._blocks:
            return self._blocks[k]
        found = None
        count = min(BLOCK_PAIRS, self._pairs - k * BLOCK_PAIRS)
        if 0 < count and k < len(self._block_crcs):
            try:
                piece = packed_cache.read_checked(self._fd, self._pairs_at + k * _BLOCK_BYTES, _block_bytes(count),
                                                  self._block_crcs[k])
                if piece is not None:
                    view = memoryview(piece)
                    found = view[:2 * count].cast("H"), view[_align(2 * count):].cast("d")
            except (OSError, ValueError, TypeError):
                found = None
        self._blocks[k] = found
        return found

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
            if _PREFIX + length + evidence_length <= size:
                head = packed_cache.read_checked(fd, _PREFIX, length, crc)
                if head is not None:
                    found = _unpack(head, key, fd, _PREFIX + length, (evidence_length, evidence_crc), size)
                    if found is not None:
                        return found  # (the descriptor stays open: the buckets, pairs and evidence are read on demand)
    except (OSError, ValueError, EOFError, TypeError, IndexError):
        pass
    os.close(fd)
    return None


def _unpack(data: bytes, key: str, fd: int, buckets_at: int, evidence: tuple[int, int], size: int) -> PackedModel | None:
    """The model of a checked head, whose buckets start at ``buckets_at`` in a file of ``size`` bytes, then the pairs'
    blocks, then the evidence piece (its length and checksum); None when anything disagrees."""
    head = marshal.loads(data)
    if not (type(head) is dict and head.get("key") == key and type(head.get("small")) is dict
            and type(head.get("n")) is int and type(head.get("pairs")) is int
            and head.get("block_pairs") == BLOCK_PAIRS and type(head.get("blocks")) is bytes
            and head.get("bucket_bits") == BUCKET_BITS and type(head.get("buckets")) is bytes
            and type(head.get("bucket_crcs")) is bytes):
        return None
    n, pairs, blocks = head["n"], head["pairs"], head["blocks"]
    if n < 0 or pairs < 0 or len(blocks) != 8 * -(-pairs // BLOCK_PAIRS):
        return None
    if len(head["buckets"]) != 8 * ((1 << BUCKET_BITS) + 1) or len(head["bucket_crcs"]) != 8 << BUCKET_BITS:
        return None
    bucket_at = memoryview(head["buckets"]).cast("Q")  # (each bucket's start; a bucket whose end is before its start,
    # or past the buckets' end, fails its own check when read)
    pairs_at = buckets_at + bucket_at[-1]
    pairs_bytes = _pairs_bytes(pairs)
    evidence_length, evidence_crc = evidence
    if bucket_at[0] != 0 or pairs_at + pairs_bytes + evidence_length != size:
        return None
    return PackedModel(head["small"], n, fd, (buckets_at, bucket_at, memoryview(head["bucket_crcs"]).cast("Q")),
                       (pairs_at + pairs_bytes, evidence_length, evidence_crc),
                       (pairs_at, pairs, memoryview(blocks).cast("Q")))


def pack(key: str, data: dict[str, Any]) -> bytes | None:
    """The cache file's bytes for the model ``data`` (read_fallback_model's), or None when it holds what the packed
    form cannot keep exactly (a class that is not a small int, a weight or an idf that is not a float)."""
    from array import array

    vocabulary, idf, weights = data["vocabulary"], data["idf"], data["weights"]
    if not (all(type(t) is str for t in vocabulary) and all(type(x) is float for x in idf)):
        return None
    term_bytes = [t.encode("utf-8", "surrogatepass") for t in vocabulary]
    row_at, classes, values = [0], [], []
    for flat in weights:
        if type(flat) is not list or len(flat) % 2:
            return None
        cs, ws = flat[0::2], flat[1::2]
        if not all(type(c) is int and 0 <= c < 1 << 16 for c in cs) or not all(type(w) is float for w in ws):
            return None
        classes.extend(cs)
        values.extend(ws)
        row_at.append(row_at[-1] + len(cs))
    if len(weights) != len(vocabulary) or len(idf) != len(vocabulary):
        return None
    buckets: list[list[tuple[int, int, bytes, float, int, int]]] = [[] for _ in range(1 << BUCKET_BITS)]
    for h, i in sorted((checksum(raw), i) for i, raw in enumerate(term_bytes)):
        buckets[h >> _BUCKET_SHIFT].append((h, i, term_bytes[i], idf[i], row_at[i], row_at[i + 1]))
    pieces = [marshal.dumps(bucket) for bucket in buckets]
    bucket_at = [0]
    for piece in pieces:
        bucket_at.append(bucket_at[-1] + len(piece))
    blocks = [array("H", classes[at:at + BLOCK_PAIRS]).tobytes() for at in range(0, len(values), BLOCK_PAIRS)]
    blocks = [c + b"\0" * (_align(len(c)) - len(c)) + array("d", values[at:at + BLOCK_PAIRS]).tobytes()
              for c, at in zip(blocks, range(0, len(values), BLOCK_PAIRS))]
    small = {k: v for k, v in data.items() if k not in PACKED_KEYS}
    head = marshal.dumps({"key": key, "small": small, "n": len(vocabulary), "pairs": len(values),
                          "block_pairs": BLOCK_PAIRS, "blocks": array("Q", [checksum(block) for block in blocks]).tobytes(),
                          "bucket_bits": BUCKET_BITS, "buckets": array("Q", bucket_at).tobytes(),
                          "bucket_crcs": array("Q", [checksum(piece) for piece in pieces]).tobytes()})
    terms = b"".join(pieces)
    pairs = b"".join(blocks)
    if len(pairs) != _pairs_bytes(len(values)):
        return None
    piece = marshal.dumps([data["labels"], data["urls"], data["vectors"]])
    if _PREFIX + len(head) + len(terms) + len(pairs) + len(piece) > MAX_BYTES:
        return None
    prefix = b"".join(x.to_bytes(8, "little") for x in (checksum(head), len(head), checksum(piece), len(piece)))
    return prefix + head + terms + pairs + piece


def _align(at: int) -> int:
    return (at + 7) // 8 * 8


def _block_bytes(count: int) -> int:
    """The length of a block of ``count`` pairs: the classes, padded to a multiple of 8 bytes, then the weights."""
    return _align(2 * count) + 8 * count


_BLOCK_BYTES = _block_bytes(BLOCK_PAIRS)  # every block but the last is full


def _pairs_bytes(pairs: int) -> int:
    """The length of the blocks of ``pairs`` pairs."""
    full, rest = divmod(pairs, BLOCK_PAIRS)
    return full * _BLOCK_BYTES + (_block_bytes(rest) if rest else 0)
