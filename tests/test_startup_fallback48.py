"""(turn 48, issue 26: start-up) The learned fallback's packed copy keeps its (class, weight) pairs in checked blocks
(kb/knowledge/fallback_pack.py FORMAT 2-4): a run reads and checks only the blocks its document's terms need, and a
block that fails its check is never used: the model reads the JSON's weights instead, with the same verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.diagnose import fallback
from kb.knowledge import fallback_pack
from kb.knowledge.tables import FALLBACK_MODEL, read_fallback_model, table_path
from test_startup_fallback import UNKNOWN, cache, packed_file, placed, shipped  # noqa: F401 - fixtures


def _read_blocks(packed: fallback_pack.PackedModel) -> set[int]:
    return {k for k, block in packed._blocks.items() if block is not None}


def test_a_document_reads_only_the_blocks_of_its_terms(placed: Path, shipped: dict) -> None:  # noqa: F811
    packed = fallback_pack.cached_model(table_path(FALLBACK_MODEL))
    assert isinstance(packed, fallback_pack.PackedModel)
    blocks = len(packed._block_crcs)
    assert blocks > 20  # (the shipped model: ~430,000 pairs)
    model = fallback.FallbackModel(packed.small, packed)
    found = model.verdict(UNKNOWN)
    assert found is not None
    assert 0 < len(_read_blocks(packed)) <= 2 * len(found.vector) < blocks
    slow = fallback.FallbackModel(shipped).verdict(UNKNOWN)
    assert (found.label, found.probability, found.vector) == (slow.label, slow.probability, slow.vector)


def test_every_row_reads_as_the_json_s(placed: Path, shipped: dict) -> None:  # noqa: F811
    packed = fallback_pack.read_packed(str(placed), fallback_pack.model_key(table_path(FALLBACK_MODEL)))
    assert packed is not None
    weights = shipped["weights"]
    assert all(packed.lookup(t) == i for i, t in enumerate(shipped["vocabulary"]))  # (every bucket read: FORMAT 4)
    assert all(packed.row(i) == weights[i] for i in range(len(weights)))  # (rows across block edges included)
    assert len(_read_blocks(packed)) == len(packed._block_crcs)


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_block_with_a_flipped_byte_is_never_used(placed: Path, shipped: dict, where: str) -> None:  # noqa: F811
    data = bytearray(placed.read_bytes())
    packed = fallback_pack.read_packed(str(placed), fallback_pack.model_key(table_path(FALLBACK_MODEL)))
    assert packed is not None
    k = {"first": 0, "middle": len(packed._block_crcs) // 2, "last": len(packed._block_crcs) - 1}[where]
    # a term whose weights lie in block k
    rows = [packed.row_range(packed.lookup(t)) for t in shipped["vocabulary"]]
    term = next(i for i, (a, b) in enumerate(rows)
                if a // fallback_pack.BLOCK_PAIRS <= k <= (b - 1) // fallback_pack.BLOCK_PAIRS and b > a)
    data[packed._pairs_at + k * fallback_pack._BLOCK_BYTES + 5] ^= 0x10
    placed.write_bytes(bytes(data))
    damaged = fallback_pack.read_packed(str(placed), fallback_pack.model_key(table_path(FALLBACK_MODEL)))
    assert damaged is not None  # (the main part holds: read; the block is checked when a row needs it)
    assert damaged.lookup(shipped["vocabulary"][term]) == term and damaged.row(term) is None
    model, slow = fallback.FallbackModel(damaged.small, damaged), fallback.FallbackModel(shipped)
    text = f"ValueError: {shipped['vocabulary'][term].split(':', 1)[-1]} {UNKNOWN}"
    a, b = model.verdict(text), slow.verdict(text)
    assert b is not None and a is not None and term in a.vector
    assert (a.label, a.probability, a.vector) == (b.label, b.probability, b.vector)
    assert model.weights._json is not None  # (the damaged block was met: the JSON's weights from then on)
    assert model.weights[term] == shipped["weights"][term]


def test_an_old_format_copy_is_not_read(cache: Path, shipped: dict) -> None:  # noqa: F811
    key = fallback_pack.model_key(table_path(FALLBACK_MODEL))
    data = fallback_pack.pack(key, shipped)
    assert data is not None
    main_length = int.from_bytes(data[8:16], "little")
    cache.mkdir(mode=0o700)
    path = cache / "copy.bin"
    path.write_bytes(data[:fallback_pack._PREFIX + main_length] + data[-int.from_bytes(data[24:32], "little"):])
    path.chmod(0o600)
    assert fallback_pack.read_packed(str(path), key) is None  # (the pairs missing: FORMAT 1's layout)
    assert read_fallback_model()["weights"] == shipped["weights"]


def test_the_lookup_s_search_is_bisect_left() -> None:
    import bisect
    from array import array

    from kb.knowledge import precompiled

    for values in ([], [5], [1, 3, 3, 3, 7, 9], list(range(0, 3000, 3))):
        view = memoryview(array("Q", values))
        for wanted in (0, 1, 3, 4, 9, 10, 1500, 2997, 3000, 2 ** 63):
            assert precompiled.first_at_least(view, wanted) == bisect.bisect_left(values, wanted)


def test_a_fallback_run_imports_no_bisect(tmp_path: Path) -> None:
    from test_startup_lazy import modules_after

    loaded = modules_after(UNKNOWN, tmp_path)
    assert "kb.knowledge.fallback_pack" in loaded and not {"bisect", "_bisect"} & loaded


@pytest.mark.parametrize("where", ["first", "last"])
def test_a_bucket_of_terms_with_a_flipped_byte_is_never_used(placed: Path, shipped: dict, where: str) -> None:  # noqa: F811
    """(turn 50, FORMAT 4) The terms are read by bucket, each checked when a term of the document first falls in it: a
    damaged one is never used, the model reads the JSON's vocabulary, idf and weights instead, with the same verdict."""
    packed = fallback_pack.read_packed(str(placed), fallback_pack.model_key(table_path(FALLBACK_MODEL)))
    assert packed is not None
    words = [t for t in shipped["vocabulary"] if t.startswith("w:")]
    word = words[0] if where == "first" else words[-1]
    term = shipped["vocabulary"].index(word)
    assert packed.lookup(word) == term
    k = fallback_pack.checksum(word.encode("utf-8")) >> fallback_pack._BUCKET_SHIFT
    data = bytearray(placed.read_bytes())
    data[packed._buckets_at + packed._bucket_at[k] + 3] ^= 0x10
    placed.write_bytes(bytes(data))
    damaged = fallback_pack.read_packed(str(placed), fallback_pack.model_key(table_path(FALLBACK_MODEL)))
    assert damaged is not None  # (the head holds: read; the bucket is checked when a term needs it)
    with pytest.raises(fallback_pack.DamagedBucket):
        damaged.lookup(word)
    model, slow = fallback.FallbackModel(damaged.small, damaged), fallback.FallbackModel(shipped)
    text = f"ValueError: {word[2:]} {UNKNOWN}"
    a, b = model.verdict(text), slow.verdict(text)
    assert b is not None and a is not None and term in a.vector
    assert (a.label, a.probability, a.vector) == (b.label, b.probability, b.vector)
    assert model.packed is None and model.nearest(a.vector, a.label) == slow.nearest(b.vector, b.label)
