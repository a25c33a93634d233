"""Start-up of an error that reaches the API-drift stage (issue 26, turn 46): the API history is read from its packed copy
in the cache folder (kb/knowledge/history_pack.py: a verified head, each big section loaded on its first lookup), not
gunzip'd and parsed whole; an error the history cannot answer by the forms' first checks (an attribute of None, a
package the history does not cover) imports neither kb/apidrift/answer.py nor reads a section. The same values as the
JSON's, to the type and the order; a damaged, foreign or stale copy is never used."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kb.apidrift import history
from kb.knowledge import history_pack
from test_startup_lazy import modules_after


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(scope="module")
def shipped() -> dict:
    """The shipped history as the JSON gives it, each section inflated."""
    from kb.knowledge.tables import read_api_history

    data = read_api_history()
    return {**data, "libraries": {lib: {s: history._inflate(v) for s, v in entry.items()}
                                  for lib, entry in data["libraries"].items()}}


def _packed(cache: Path) -> tuple[Path, dict]:
    """The packed copy in ``cache`` (written by a first call) and what a second call reads from it."""
    first = history_pack.cached_history(history_pack.shipped_path(), history._stored)
    assert first is not None and not any(isinstance(v, history_pack.Piece)
                                         for entry in first["libraries"].values() for v in entry.values())
    (path,) = cache.glob("api-history-*.bin")
    second = history_pack.cached_history(history_pack.shipped_path(), history._stored)
    assert second is not None
    return path, second


def _same(a: object, b: object) -> bool:
    """Equal to the type and the order of every dict (JSON text of each, unsorted)."""
    return json.dumps(a) == json.dumps(b)


def test_a_warm_run_of_a_noneType_attribute_imports_no_history(tmp_path: Path) -> None:
    loaded = modules_after("AttributeError: 'NoneType' object has no attribute 'shape'\n", tmp_path)
    assert "kb.diagnose.drift" in loaded and "kb.apidrift.python_types" in loaded  # (the drift stage judged it)
    assert not {"kb.apidrift.answer", "kb.apidrift.history", "re", "json", "gzip", "typing"} & loaded, \
        sorted({"kb.apidrift.answer", "kb.apidrift.history", "re", "json", "gzip", "typing"} & loaded)


def test_a_package_the_history_does_not_cover_is_told_from_the_packed_head(tmp_path: Path) -> None:
    loaded = modules_after("AttributeError: module 'numpy' has no attribute 'float'\n", tmp_path)
    assert "kb.knowledge.history_pack" in loaded and "kb.apidrift.history" in loaded  # (the head was read)
    assert not {"kb.apidrift.answer", "re", "json", "gzip", "zlib", "typing"} & loaded, \
        sorted({"kb.apidrift.answer", "re", "json", "gzip", "zlib", "typing"} & loaded)
    assert list((tmp_path / "cache").glob("api-history-*.bin"))


def test_a_missing_covered_library_is_answered_without_the_json(tmp_path: Path) -> None:
    loaded = modules_after("ModuleNotFoundError: No module named 'peft'\n", tmp_path)
    # (the history answered: since turn 50 through kb/apidrift/section.py, without answer.py)
    assert "kb.apidrift.section" in loaded and "kb.knowledge.history_pack" in loaded
    assert not {"json", "gzip", "zlib", "re", "typing"} & loaded, sorted({"json", "gzip", "zlib", "re", "typing"} & loaded)


def test_the_packed_copy_holds_the_json_s_values(cache: Path, shipped: dict) -> None:
    _path, packed = _packed(cache)
    assert list(packed) == list(shipped) and list(packed["libraries"]) == list(shipped["libraries"])
    assert all(_same(packed[k], shipped[k]) for k in shipped if k != "libraries")
    for lib, entry in shipped["libraries"].items():
        assert list(packed["libraries"][lib]) == list(entry)
        for section, value in entry.items():
            got = packed["libraries"][lib][section]
            assert _same(got.load() if isinstance(got, history_pack.Piece) else got, value), (lib, section)
    assert any(isinstance(v, history_pack.Piece) for v in packed["libraries"]["transformers"].values())


def test_load_history_reads_the_packed_copy_once_it_is_there(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _packed(cache)
    from kb.knowledge import tables

    def no_json(*args: object, **kwargs: object) -> None:
        raise AssertionError("the JSON was read")

    monkeypatch.setattr(tables, "read_api_history", no_json)
    monkeypatch.setattr(history, "_LOADED", {})
    h = history.load_history()
    assert h.versions("peft") and h.export_versions("peft", "peft", "LoraConfig")
    assert not isinstance(dict.__getitem__(h._libs["peft"], "exports"), history_pack.Piece)  # (loaded on use)
    assert isinstance(dict.__getitem__(h._libs["peft"], "members"), history_pack.Piece)  # (not read: not asked)


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))
    os.chmod(path, 0o600)


@pytest.mark.parametrize("where", ["prefix", "head"])
def test_a_flipped_byte_in_the_head_is_never_read(cache: Path, where: str) -> None:
    path, _ = _packed(cache)
    _flip(path, 3 if where == "prefix" else 40)
    key = history_pack.history_key(history_pack.shipped_path())
    assert history_pack.read_packed(str(path), key) is None


def test_a_flipped_byte_in_a_section_reads_that_section_from_the_json(cache: Path, shipped: dict,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path, packed = _packed(cache)
    piece = dict.__getitem__(packed["libraries"]["peft"], "exports")
    assert isinstance(piece, history_pack.Piece)
    _flip(path, piece._offset + piece._length // 2)
    again = history_pack.read_packed(str(path), history_pack.history_key(history_pack.shipped_path()))
    assert again is not None  # (the head is whole)
    with pytest.raises(history_pack.DamagedPiece):
        dict.__getitem__(again["libraries"]["peft"], "exports").load()
    h = history.History(again, {}, history._from_json)
    assert _same(h._libs["peft"]["exports"], shipped["libraries"]["peft"]["exports"])
    bare = history.History(history_pack.read_packed(str(path), history_pack.history_key(history_pack.shipped_path())), {})
    with pytest.raises(OSError):  # (no fallback given: an error, never the damaged bytes)
        bare._libs["peft"]["exports"]


def test_a_link_or_a_file_others_may_write_is_not_read(cache: Path, tmp_path: Path) -> None:
    path, _ = _packed(cache)
    key = history_pack.history_key(history_pack.shipped_path())
    os.chmod(path, 0o622)
    assert history_pack.read_packed(str(path), key) is None
    os.chmod(path, 0o600)
    real = tmp_path / "elsewhere.bin"
    path.rename(real)
    path.symlink_to(real)
    assert history_pack.read_packed(str(path), key) is None
    assert history_pack.read_packed(str(real), key) is not None  # (the same bytes, not through a link: read)


def test_a_file_under_another_key_is_not_read(cache: Path) -> None:
    path, _ = _packed(cache)
    key = history_pack.history_key(history_pack.shipped_path())
    assert history_pack.read_packed(str(path), key + "x") is None


def test_a_changed_history_file_is_packed_again(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "h.json.gz"
    copy.write_bytes(Path(history_pack.shipped_path()).read_bytes())
    assert history_pack.cached_history(str(copy), history._stored) is not None
    os.utime(copy, ns=(1, 1))  # (a new mtime: another key)
    assert history_pack.cached_history(str(copy), history._stored) is not None
    assert len(list(cache.glob("api-history-*.bin"))) == 2


def test_no_cache_folder_means_the_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", "relative/cache")  # a relative one means no cache (kb/knowledge/index.py)
    assert history_pack.cached_history(history_pack.shipped_path(), history._stored) is None
    monkeypatch.setattr(history, "_LOADED", {})
    assert history.load_history().versions("peft")


@pytest.mark.parametrize(("form", "fields"), [
    ("object-attribute", {"cls": "NoneType", "name": "shape"}),
    ("object-attribute", {"cls": "str", "name": "to"}),
    ("no-module", {"module": "flash_attn"}),
    ("no-module", {"module": "foo_lib.sub"}),
    ("import-name", {"name": "bar", "module": "foo_lib"}),
    ("import-name", {"name": "bar", "module": "foo_lib", "bare": "unquoted"}),
    ("module-attribute", {"name": "float", "module": "numpy"}),
])
def test_what_the_gate_settles_the_history_would_not_answer(form: str, fields: dict[str, str]) -> None:
    from kb.apidrift.answer import answer
    from kb.diagnose import drift

    assert drift._no_history_answer(form, dict(fields))
    assert answer(form, dict(fields), {}, None) is None


@pytest.mark.parametrize(("form", "fields"), [
    ("object-attribute", {"cls": "LlamaForCausalLM", "name": "_update_causal_mask"}),
    ("no-module", {"module": "peft"}),
    ("import-name", {"name": "AdamW", "module": "transformers"}),
    ("import-name", {"name": "AdamW", "module": "foo_lib", "modules": "foo_lib|transformers", "bare": "no-module"}),
    ("module-attribute", {"name": "x", "module": "numpy", "modules": "numpy|torch"}),
    ("unexpected-kwarg", {"callable": "foo_lib.f", "name": "x"}),
])
def test_the_gate_leaves_the_rest_to_the_history(form: str, fields: dict[str, str]) -> None:
    from kb.diagnose import drift

    assert not drift._no_history_answer(form, dict(fields))


def _entries_cache(cache: Path) -> Path:
    (path,) = cache.glob("drift-entries-*.marshal")
    return path


def test_the_verified_entries_are_read_from_the_cache_folder_as_parsed(cache: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.knowledge import drift_entry

    folders = drift_entry.drift_folders()
    parsed = drift_entry.load_drift_entries(folders)  # (a cold cache: each file parsed, the cache written)
    assert parsed and _entries_cache(cache).exists()
    assert parsed == [drift_entry.load_drift_entry(f) for f in folders]  # (kb's entries are all well-formed)

    def no_toml(*args: object, **kwargs: object) -> None:
        raise AssertionError("an entry file was parsed")

    import tomllib

    monkeypatch.setattr(tomllib, "loads", no_toml)
    cached = drift_entry.load_drift_entries(folders)
    assert cached == parsed and [e.data for e in cached] == [e.data for e in parsed]
    assert cached[0].data is not drift_entry.load_drift_entries(folders)[0].data  # (each load its own values)


def test_a_changed_entry_file_is_parsed_again(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from kb.knowledge import drift_entry

    root = tmp_path / "drift"
    for folder in drift_entry.drift_folders()[:3]:
        shutil.copytree(folder, root / os.path.basename(folder))
    folders = drift_entry.drift_folders(root)
    drift_entry.load_drift_entries(folders)
    toml = Path(folders[1]) / drift_entry.ENTRY_FILE
    toml.write_text(toml.read_text(encoding="utf-8").replace('summary = "', 'summary = "changed: ', 1), encoding="utf-8")
    again = drift_entry.load_drift_entries(folders)
    assert again[1].summary.startswith("changed: ") and not again[0].summary.startswith("changed: ")


@pytest.mark.parametrize("damage", ["flip", "others-write", "link"])
def test_a_damaged_or_foreign_entries_cache_is_not_read(cache: Path, tmp_path: Path, damage: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.knowledge import drift_entry

    folders = drift_entry.drift_folders()[:4]
    drift_entry.load_drift_entries(folders)
    path = _entries_cache(cache)
    if damage == "flip":
        _flip(path, 100)
    elif damage == "others-write":
        os.chmod(path, 0o666)
    else:
        real = tmp_path / "elsewhere.marshal"
        path.rename(real)
        path.symlink_to(real)
    records, _where = drift_entry._parsed_records(folders)
    assert records == {}
    import tomllib

    calls = []
    real_loads = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: calls.append(1) or real_loads(text))
    assert drift_entry.load_drift_entries(folders) == [drift_entry.load_drift_entry(f) for f in folders]
    assert len(calls) >= len(folders)  # (parsed from the files)


def test_the_kept_modules_and_exporters_are_the_scans_and_handed_out_as_copies(shipped: dict) -> None:
    h = history.History(shipped, {})
    version = h.versions("transformers")[-5]
    i = h._index["transformers"][version]
    scan = {m for r, names in shipped["libraries"]["transformers"]["modules"].items() if i in h._range(r)
            for m in names.split()}
    first = h.modules("transformers", version)
    assert first == scan
    first.add("not.a.module")
    assert h.modules("transformers", version) == scan
    exporters = h.exporting_modules("transformers", "AutoModel")
    assert exporters and exporters == history.History(shipped, {}).exporting_modules("transformers", "AutoModel")
    exporters.append("x")
    assert "x" not in h.exporting_modules("transformers", "AutoModel")


def test_a_side_table_is_read_from_its_marshal_copy_as_parsed(cache: Path, tmp_path: Path) -> None:
    import gzip

    source = tmp_path / "side.json.gz"
    value = {"b": [1, 2.5, None, True, "x"], "a": {"z": [], "y": {"k": "v"}}}
    source.write_bytes(gzip.compress(json.dumps(value).encode()))
    parses = []

    def parse() -> dict:
        parses.append(1)
        with gzip.open(source, "rt", encoding="utf-8") as handle:
            return json.load(handle)

    first = history_pack.marshal_copy(str(source), parse)
    second = history_pack.marshal_copy(str(source), parse)
    assert _same(first, value) and _same(second, value) and len(parses) == 1  # (the second from the copy)
    (copy,) = cache.glob("table-*.marshal")
    _flip(copy, 20)
    assert _same(history_pack.marshal_copy(str(source), parse), value) and len(parses) == 2  # (damaged: parsed)
    os.chmod(copy, 0o646)
    assert _same(history_pack.marshal_copy(str(source), parse), value) and len(parses) == 3  # (others may write)
    os.utime(source, ns=(1, 1))  # (a changed file: another key, parsed again)
    history_pack.marshal_copy(str(source), parse)
    assert len(parses) == 4


def test_the_private_names_table_is_the_json_s(cache: Path) -> None:
    import gzip

    from kb.apidrift.json_table import read_table
    from kb.knowledge.tables import table_path

    with gzip.open(table_path("api-history-private.json.gz"), "rt", encoding="utf-8") as handle:
        parsed = json.load(handle)
    assert _same(read_table("api-history-private.json.gz"), parsed)  # (a cold cache: parsed, the copy written)
    assert list(cache.glob("table-*.marshal"))
    assert _same(read_table("api-history-private.json.gz"), parsed)  # (from the copy)


def test_the_entries_regexes_come_from_the_regex_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.knowledge import drift_entry

    folders = drift_entry.drift_folders()[:5]
    first = [drift_entry.load_drift_entry(f) for f in folders]

    def no_compile(*args: object, **kwargs: object) -> None:
        raise AssertionError("re.compile was called")

    import re

    monkeypatch.setattr(re, "compile", no_compile)
    again = [drift_entry.load_drift_entry(f) for f in folders]
    assert again == first and all(e.expected.message.pattern for e in again)


def test_the_before_table_is_read_from_its_copy_as_parsed(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.knowledge.tables import read_table_file, table_path

    parsed = read_table_file(table_path("api-history-before.toml"))
    h = history.History({"libraries": {}, "index": {}}, {})
    assert h.before("", "", "") is None and list(cache.glob("table-*.marshal"))  # (read once: the copy written)
    import tomllib

    def no_toml(*args: object, **kwargs: object) -> None:
        raise AssertionError("the TOML was parsed")

    monkeypatch.setattr(tomllib, "load", no_toml)
    again = history.History({"libraries": {}, "index": {}}, {})
    again.before("", "", "")
    assert again._noted_hooks == list(parsed.get("hook", [])) and again._stubs == h._stubs
    assert again._before == h._before and again._noted == h._noted and again._noted_checks == h._noted_checks
