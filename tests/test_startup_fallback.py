"""Start-up of an input no signature answers (issue 26, turn 46): the learned fallback's model is read from its packed
copy in the cache folder (kb/knowledge/fallback_pack.py), not parsed from the gzip'd JSON (~0.25 s); the same verdicts
to the last bit; a damaged or stale copy is never used. And neither the fallback nor the drift stage's cut-call and
cut-key readings import `re` for an error they ask nothing of; the API history's first release of each model type is
the table it always was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kb.diagnose import fallback
from kb.knowledge import fallback_pack
from kb.knowledge.tables import FALLBACK_MODEL, read_fallback_model, table_path
from test_startup_lazy import DEV, modules_after

UNKNOWN = "ValueError: foo bar baz qux\n"  # no signature, no prior: the fallback reads it (and abstains)


@pytest.fixture(scope="module")
def shipped() -> dict:
    return read_fallback_model()


@pytest.fixture(scope="module")
def packed_file(shipped: dict) -> tuple[str, bytes]:
    """The shipped model's packed file (its name in a cache folder, its bytes), packed once for the module."""
    from kb.knowledge.precompiled import checksum

    key = fallback_pack.model_key(table_path(FALLBACK_MODEL))
    data = fallback_pack.pack(key, shipped)
    assert key is not None and data is not None
    return f"fallback-{checksum(key.encode('utf-8', 'surrogatepass')) & 0xFFFFFFFF:08x}.bin", data


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    return folder


def test_a_warm_run_that_reaches_the_fallback_parses_no_json_and_imports_no_re(tmp_path: Path) -> None:
    loaded = modules_after(UNKNOWN, tmp_path)
    assert "kb.diagnose.fallback" in loaded and "kb.knowledge.fallback_pack" in loaded  # (the fallback did read)
    assert not {"json", "gzip", "zlib", "re", "tempfile"} & loaded, sorted({"json", "gzip", "zlib", "re"} & loaded)
    assert list((tmp_path / "cache").glob("fallback-*.bin"))


def _documents() -> list[str]:
    texts = [p.read_text(encoding="utf-8", errors="replace")[: fallback.TEXT_CHARS] for p in DEV[::23]]
    return [*texts, UNKNOWN, "", "ünïcode wörds 0x1f 42 https://example.com/x", "KeyError: 'labels'"]


def test_the_packed_model_gives_the_json_models_verdicts(placed: Path, shipped: dict) -> None:
    packed = fallback_pack.cached_model(table_path(FALLBACK_MODEL))
    assert isinstance(packed, fallback_pack.PackedModel)
    fast, slow = fallback.FallbackModel(packed.small, packed), fallback.FallbackModel(shipped)
    answered = 0
    for text in _documents():
        a, b = fast.verdict(text), slow.verdict(text)
        if b is None:
            assert a is None
            continue
        assert (a.label, a.probability, a.vector) == (b.label, b.probability, b.vector)
        assert fast.scores(a.vector) == slow.scores(b.vector)
        assert fast.decide(a) == slow.decide(b)
        assert fast.nearest(a.vector, a.label) == slow.nearest(b.vector, b.label)
        answered += fast.decide(a)
    assert (fast.labels, fast.urls, fast.vectors) == (shipped["labels"], shipped["urls"], shipped["vectors"])
    for i in (0, 1, len(shipped["vocabulary"]) // 2, len(shipped["vocabulary"]) - 1):
        assert packed.lookup(shipped["vocabulary"][i]) == i
        assert packed.row(i) == shipped["weights"][i] and packed.idf[i] == shipped["idf"][i]
    assert packed.lookup("w:no-such-term-in-any-model") is None


def test_load_model_reads_the_packed_copy_once_it_is_there(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fallback._MODEL.clear()
    try:
        first = fallback.load_model()  # packs it
        assert first is not None and first.packed is not None and list(cache.glob("fallback-*.bin"))

        def no_json(*args: object, **kwargs: object) -> None:
            raise AssertionError("the JSON model was read")

        monkeypatch.setattr("kb.knowledge.tables.read_fallback_model", no_json)
        fallback._MODEL.clear()
        again = fallback.load_model()
        assert again is not None and again.packed is not None and again.verdict(UNKNOWN) is not None
    finally:
        fallback._MODEL.clear()


@pytest.fixture
def placed(cache: Path, packed_file: tuple[str, bytes]) -> Path:
    """The packed file in the test's cache folder, as a run that packed it leaves it (the same name and bytes)."""
    cache.mkdir(mode=0o700, exist_ok=True)
    path = cache / packed_file[0]
    path.write_bytes(packed_file[1])
    path.chmod(0o600)
    assert isinstance(fallback_pack.cached_model(table_path(FALLBACK_MODEL)), fallback_pack.PackedModel)
    assert list(cache.glob("fallback-*.bin")) == [path]
    return path


@pytest.mark.parametrize("where", [8, 40, 4096, -100_000])
def test_a_flipped_byte_is_never_read_as_the_model(placed: Path, where: int) -> None:
    path = placed
    data = bytearray(path.read_bytes())
    data[where] ^= 0x40
    path.write_bytes(bytes(data))
    key = fallback_pack.model_key(table_path(FALLBACK_MODEL))
    found = fallback_pack.read_packed(str(path), key)
    if where >= 0:  # the prefix or the main part: refused as a whole
        assert found is None
    else:  # the evidence piece: refused when read, and the model reads the JSON's instead
        assert found is not None and found.evidence() is None
        model = fallback.FallbackModel(found.small, found)
        assert model.urls == read_fallback_model()["urls"]
    # packed afresh when the main part fails
    assert isinstance(fallback_pack.cached_model(table_path(FALLBACK_MODEL)), fallback_pack.PackedModel)


def test_a_changed_model_file_is_packed_again(cache: Path, tmp_path: Path, shipped: dict) -> None:
    copy = tmp_path / "model.json.gz"
    copy.write_bytes(Path(table_path(FALLBACK_MODEL)).read_bytes())
    assert isinstance(fallback_pack.cached_model(str(copy)), fallback_pack.PackedModel)
    os.utime(copy, ns=(1, 1))
    assert fallback_pack.model_key(str(copy)) not in {fallback_pack.model_key(table_path(FALLBACK_MODEL))}
    assert isinstance(fallback_pack.cached_model(str(copy)), fallback_pack.PackedModel)
    assert len(list(cache.glob("fallback-*.bin"))) == 2


def test_no_cache_folder_means_the_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", "relative/cache")  # a relative one means no cache (kb/knowledge/index.py)
    assert fallback_pack.cached_model(table_path(FALLBACK_MODEL)) is None


def test_what_the_packed_form_cannot_keep_exactly_is_not_packed(shipped: dict) -> None:
    small = {**shipped, "vocabulary": ["w:a", "w:b"], "idf": [1.0, 2.0], "weights": [[0, 0.5], [1, 2]]}
    assert fallback_pack.pack("k", small) is None  # an int weight would come back a float
    small["weights"] = [[0, 0.5], [1, 2.0]]
    assert fallback_pack.pack("k", small) is not None


def test_each_model_type_s_first_release_is_the_release_by_release_table() -> None:
    from kb.apidrift.history import load_history

    history = load_history()
    table: dict[str, str] = {}
    for version in history.versions("transformers"):
        for model_type in history.model_types(version):
            table.setdefault(model_type, version)
    assert table and all(history.model_type_first(t) == v for t, v in table.items())
    assert history._model_type_first == table
    assert history.model_type_first("no_such_model_type") is None


def test_a_bare_keyerror_reads_the_model_types_from_the_cache_not_the_history(tmp_path: Path) -> None:
    loaded = modules_after("KeyError: 'labels'\n", tmp_path)
    assert "kb.diagnose.drift" in loaded  # (the model-type check ran)
    assert not {m for m in loaded if m.startswith(("kb.apidrift", "json", "gzip", "re", "pathlib"))}
    assert list((tmp_path / "cache").glob("model-types-*.marshal"))


def test_the_cached_model_types_are_the_history_s(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.apidrift.history import load_history
    from kb.diagnose import drift

    history = load_history()
    monkeypatch.setattr(drift, "_MODEL_TYPES", {})
    table = drift._model_type_table()  # written
    (written,) = cache.glob("model-types-*.marshal")
    monkeypatch.setattr(drift, "_MODEL_TYPES", {})
    assert drift._model_type_table() == table  # read back
    for name in [*sorted(table)[::25], "labels", "no_such_model_type"]:
        assert drift.known_model_type(name) == history.model_type_first(name)
    # a file whose key is not the history file's (planted, or left by another knowledge root) is not read
    import marshal

    written.write_bytes(marshal.dumps({"key": "another", "table": {"labels": "0.0.1"}}))
    monkeypatch.setattr(drift, "_MODEL_TYPES", {})
    assert drift.known_model_type("labels") is None


def test_a_packed_file_past_the_bound_is_neither_written_nor_read(placed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = placed  # packed under the real bound
    key = fallback_pack.model_key(table_path(FALLBACK_MODEL))
    assert fallback_pack.read_packed(str(path), key) is not None
    monkeypatch.setattr(fallback_pack, "MAX_BYTES", path.stat().st_size - 1)
    assert fallback_pack.read_packed(str(path), key) is None  # (a file of its size is not read whole)
    path.unlink()
    assert fallback_pack.cached_model(table_path(FALLBACK_MODEL)) == read_fallback_model() and not path.exists()


def test_a_cache_folder_it_cannot_write_to_costs_one_json_read(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.mkdir(mode=0o700)
    reads: list[str] = []
    real = fallback_pack.pack

    def counted(*args: object) -> object:
        reads.append("pack")
        return real(*args)

    monkeypatch.setattr(fallback_pack, "pack", counted)
    monkeypatch.setattr(fallback_pack.os, "access", lambda path, mode: False)
    assert fallback_pack.cached_model(table_path(FALLBACK_MODEL)) is None and reads == []  # (nothing packed in vain)
    monkeypatch.undo()
    monkeypatch.setenv("KB_CACHE_DIR", str(cache))
    monkeypatch.setattr("kb.knowledge.index_build.write_private", lambda cache, data: None)  # a write that fails
    found = fallback_pack.cached_model(table_path(FALLBACK_MODEL))
    assert isinstance(found, dict) and found["vocabulary"] == read_fallback_model()["vocabulary"]
