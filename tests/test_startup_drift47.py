"""`kb diagnose`'s start-up on inputs that reach the API-drift stage's answers (issue 26, turn 47): what the answers
import (kb/apidrift/answer.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_a_drift_answer_reads_deprecation_messages_without_the_source_reader(tmp_path: Path) -> None:
    """(turn 47) kb/apidrift/answer.py reads a kept deprecation message with kb/apidrift/deprecation_text.py only:
    kb/apidrift/deprecations.py (a release's source: ast, dataclasses, the wheel reader's zipfile, datetime, shutil)
    is not imported by `kb diagnose` (drift-33-ai-toolkit-674: ~130 modules -> ~110)."""
    from test_startup_lazy import modules_after

    from kb.apidrift import deprecation_text, deprecations

    assert deprecations.parse_message is deprecation_text.parse_message  # (one definition)
    assert deprecation_text.parse_message("`evaluation_strategy` is deprecated. Use `eval_strategy` instead") == (
        "evaluation_strategy", "eval_strategy")
    loaded = modules_after("ImportError: cannot import name 'Repository' from 'huggingface_hub' "
                           "(/usr/lib/python3/dist-packages/huggingface_hub/__init__.py)\n", tmp_path)
    assert "kb.apidrift.answer" in loaded  # (the history answered it)
    assert not {"kb.apidrift.deprecations", "kb.apidrift.params", "kb.apidrift.wheel", "zipfile"} & loaded, \
        sorted({"kb.apidrift.deprecations", "kb.apidrift.params", "kb.apidrift.wheel", "zipfile"} & loaded)


# -- the packed history's name index (kb/knowledge/history_pack.py name_index, NameIndex) ---------------------------

NAMES = ("LlavaQwenModel", "AutoModel", "PreTrainedModel", "GenerationMixin", "Repository", "LoraConfig",
         "TrainingArguments", "OptimizerNames", "_update_causal_mask", "from_pretrained", "get_max_length",
         "prepare_model_for_int8_training", "no_such_name_anywhere", "__init__")


@pytest.fixture
def packed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """(the packed copy's path, a History read from it with its name index, a History of the JSON without one)."""
    from kb.apidrift import history
    from kb.knowledge import history_pack

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    assert history_pack.cached_history(history_pack.shipped_path(), history._stored) is not None  # (packs it)
    found = history_pack.cached_history(history_pack.shipped_path(), history._stored)
    assert isinstance(found, history_pack.PackedHistory) and found.names is not None
    (path,) = (tmp_path / "cache").glob("api-history-*.bin")
    from kb.knowledge.tables import read_api_history

    return path, history.History(found, {}, history._from_json), history.History(read_api_history(), {})


def test_the_name_index_answers_as_the_scan_of_every_section(packed) -> None:
    _path, indexed, scanned = packed
    assert indexed._names is not None and scanned._names is None
    for name in NAMES:
        assert indexed.find_classes(name) == scanned.find_classes(name), name
        for lib in scanned.libraries():
            assert indexed.find_classes(name, lib) == scanned.find_classes(name, lib), (name, lib)
            assert indexed.exporting_modules(lib, name) == scanned.exporting_modules(lib, name), (name, lib)
            holding = indexed.classes_with_member(lib, name)
            having = [p for p in scanned.member_classes(lib) if scanned.member_versions(lib, p, name)[1]]
            assert set(having) <= set(holding) and all(p in scanned.member_classes(lib) for p in holding), (name, lib)
    for lib in scanned.libraries():
        assert indexed.member_classes(lib) == scanned.member_classes(lib), lib
    assert scanned.classes_with_member("transformers", "x") is None  # (no index: the caller scans)


def test_an_unknown_class_reads_no_members_nor_exports_section(packed) -> None:
    from kb.knowledge import history_pack

    _path, indexed, _scanned = packed
    sections = [(lib, section) for lib in indexed.libraries() for section in ("members", "exports", "enums")
                if isinstance(dict.get(indexed._libs[lib], section), history_pack.Piece)]
    assert ("transformers", "members") in sections and ("transformers", "exports") in sections
    assert indexed.find_classes("LlavaQwenModel") == []
    assert not any(indexed.exporting_modules(lib, "LlavaQwenModel") for lib in indexed.libraries())
    assert indexed.member_classes("transformers")  # (from the index's list of paths)
    for lib, section in sections:
        assert isinstance(dict.get(indexed._libs[lib], section), history_pack.Piece), (lib, section)  # (not loaded)


def test_a_damaged_index_bucket_is_never_used(packed, tmp_path: Path) -> None:
    from kb.apidrift import history
    from kb.knowledge import history_pack

    path, _indexed, scanned = packed
    key = history_pack.history_key(history_pack.shipped_path())
    fresh = history_pack.read_packed(str(path), key)
    piece = fresh.names.piece("classes", history_pack.bucket("AutoModel"))
    data = bytearray(path.read_bytes())
    data[piece._offset + piece._length // 2] ^= 1
    path.write_bytes(bytes(data))
    damaged = history.History(history_pack.read_packed(str(path), key), {}, history._from_json)
    assert damaged.find_classes("AutoModel") == scanned.find_classes("AutoModel")  # (scanned: the bucket failed)
    assert damaged._names is None


def test_a_private_member_reading_imports_no_typing(tmp_path: Path) -> None:
    """(turn 47) drift-61-HoliTom-6's reading asks drift/'s verified entries (kb/knowledge/drift_entry.py), which
    imported typing at load for its annotations only (~3-6 ms)."""
    from test_startup_lazy import modules_after

    loaded = modules_after("AttributeError: 'LlavaQwenModel' object has no attribute '_update_causal_mask' when "
                           "running HoliTom with lmms-eval\n", tmp_path)
    assert "kb.knowledge.drift_entry" in loaded and "kb.apidrift.answer" in loaded
    assert "typing" not in loaded
