"""A rebuild of some libraries only (python -m kb.apidrift build --lib torch) keeps what it did not rebuild: the
other libraries' tables and, when transformers is not rebuilt, the model types and rope facts merge() reads from
transformers' extractions (turn 42: a rebuild of torch alone, with no transformers extraction cached, would have
written them empty)."""

from __future__ import annotations

from kb.apidrift.build import keep_shipped
from kb.apidrift.history import pack
from kb.apidrift.merge import merge


def _release(version: str, model_types: list[str]) -> dict:
    return {"version": version, "built": "2024-01-01", "modules": ["pkg"], "exports": {"pkg": ["f"]}, "params": {},
            "facts": [], "model_types": model_types, "rope": {"messages": [], "rope_types": []}, "defaults": {},
            "literals": {}, "members": {}, "enums": {}}


def _shipped() -> dict:
    """A shipped file (packed, as build writes it) built from every library, transformers knowing model type llama."""
    per_version = {"torch": [_release("2.0.0", [])], "transformers": [_release("4.40.0", ["llama"])]}
    return pack(merge(per_version))


def test_a_rebuild_of_torch_alone_keeps_transformers_table_and_its_model_types() -> None:
    shipped = _shipped()
    assert shipped["model_types"]  # the file had them
    rebuilt = merge({"torch": [_release("2.1.0", [])], "transformers": []})  # no transformers extraction cached
    assert rebuilt["model_types"] == {}  # what merge() alone would write
    keep_shipped(rebuilt, shipped, ["torch"])
    assert rebuilt["model_types"] == shipped["model_types"] and rebuilt["rope"] == shipped["rope"]
    assert rebuilt["libraries"]["transformers"]["versions"] == ["4.40.0"]
    assert rebuilt["libraries"]["torch"]["versions"] == ["2.1.0"]  # the rebuilt library is the new one


def test_a_rebuild_of_transformers_writes_its_own_model_types() -> None:
    shipped = _shipped()
    rebuilt = merge({"torch": [], "transformers": [_release("4.41.0", ["llama", "gemma"])]})
    keep_shipped(rebuilt, shipped, ["transformers"])
    assert rebuilt["model_types"] != shipped["model_types"]
    assert "gemma" in " ".join(rebuilt["model_types"].values())
    assert rebuilt["libraries"]["torch"]["versions"] == ["2.0.0"]  # torch kept as shipped


def test_a_shipped_file_of_another_format_is_not_mixed_in() -> None:
    shipped = {**_shipped(), "format": 1}
    rebuilt = merge({"torch": [_release("2.1.0", [])], "transformers": []})
    keep_shipped(rebuilt, shipped, ["torch"])
    assert rebuilt["model_types"] == {} and rebuilt["libraries"]["transformers"]["versions"] == []
