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


def test_a_library_a_partial_rebuild_keeps_is_read_from_its_caches_only(tmp_path, monkeypatch) -> None:
    """Its extractions are needed only where a rebuilt library inherits from it; its files are never read (a torch-only
    rebuild with every library's wheels in the cache would otherwise extract all nine libraries' thousand releases),
    and a library not wholly cached gives none."""
    from kb.apidrift import build

    (tmp_path / "torch-2.0.0-cp311-none-macosx_11_0_arm64.whl").write_bytes(b"not a zip")  # read: BadZipFile
    monkeypatch.setattr(build, "available_versions", lambda lib, refresh=True: ["2.0.0"])
    monkeypatch.setattr(build, "extract_cache", lambda lib, version: tmp_path / "none.json")
    monkeypatch.setattr(build, "_upload_dates", lambda lib, versions: {})
    monkeypatch.setattr(build, "_yanked", lambda lib: [])
    assert build.library_releases("torch", tmp_path, online=False, cache_only=True) == []


def test_a_rebuilt_library_inheriting_from_one_without_extractions_is_refused() -> None:
    from kb.apidrift.build import unread_externals

    peft = [{**_release("0.9.0", []), "params": {"peft.LoraConfig": {"params": ["r"], "external": [
        "transformers.utils.PushToHubMixin"], "kind": "class"}}}]
    assert unread_externals({"peft": peft, "transformers": [], "torch": []}, ["peft"]) == {"peft": {"transformers"}}
    assert unread_externals({"peft": peft, "transformers": [_release("4.40.0", [])]}, ["peft"]) == {}
    assert unread_externals({"torch": [_release("2.0.0", [])], "transformers": []}, ["torch"]) == {}


def _facts_release(version: str, facts: list[dict]) -> dict:
    return {**_release(version, []), "facts": facts}


def test_a_keyword_an_unquoted_message_opens_with_is_one_record_with_its_later_quoted_statement() -> None:
    """torch 1.8-2.3's profile says "use_cuda is deprecated, use activities argument instead" (read as a name by the
    extractor's unquoted opening), 2.4 quotes it (a keyword): one record, from 1.8.0, not 'gone in 2.4.0'."""
    from kb.apidrift.merge import merge

    owner = "torch.profiler.profiler.profile"
    unquoted = {"kind": "name", "owner": owner, "old": "use_cuda", "new": None,
                "message": "use_cuda is deprecated, use activities argument instead"}
    quoted = {"kind": "param", "owner": owner, "old": "use_cuda", "new": None,
              "message": "`use_cuda` is deprecated, use `activities` argument instead"}
    sdp = {"kind": "name", "owner": "torch.backends.cuda.sdp_kernel", "old": "sdp_kernel", "new": None,
           "message": "torch.backends.cuda.sdp_kernel() is deprecated. In the future, this context manager will be removed."}
    releases = [_facts_release("1.8.0", [unquoted]), _facts_release("2.3.0", [unquoted, sdp]),
                _facts_release("2.4.0", [quoted, sdp]), _facts_release("2.5.0", [quoted, sdp])]
    renames = merge({"torch": releases})["libraries"]["torch"]["renames"]
    cuda = [r for r in renames if r["old"] == "use_cuda"]
    assert len(cuda) == 1 and cuda[0]["kind"] == "param" and cuda[0]["since"] == "1.8.0"
    assert cuda[0]["first_without"] is None
    kernel = [r for r in renames if r["old"] == "sdp_kernel"]  # the name the message opens with is its owner's
    assert len(kernel) == 1 and kernel[0]["kind"] == "name" and kernel[0]["since"] == "2.3.0"


def test_a_name_a_message_quotes_after_an_unquoted_opening_keeps_its_kind() -> None:
    # torch's FunctionCtx.mark_shared_storage: "mark_shared_storage is deprecated. ... calls to `set_()` are not
    # tracked": the fact's name is the quoted `set_`, not read from the opening; it is not made a keyword
    from kb.apidrift.merge import _keyword_opening

    fact = {"kind": "name", "owner": "torch.autograd.function.FunctionCtx.mark_shared_storage", "old": "set_",
            "new": None, "message": "mark_shared_storage is deprecated. Tensors with shared storages are automatically "
            "tracked. Note that calls to `set_()` are not tracked"}
    assert _keyword_opening(fact) == fact


def test_a_name_an_unquoted_message_opens_with_is_a_keyword_only_where_the_callable_can_take_it() -> None:
    # transformers 4.39's "ALL_PRETRAINED_CONFIG_ARCHIVE_MAP is deprecated ..." sits in the lazy mapping's private
    # `_initialize`: a module-level constant, not a keyword of that method (turn 42 recorded it as a "param")
    from kb.apidrift.merge import _keyword_opening

    constant = {"kind": "name", "owner": "transformers.models.auto.configuration_auto._LazyLoadAllMappings._initialize",
                "old": "ALL_PRETRAINED_CONFIG_ARCHIVE_MAP", "new": None,
                "message": "ALL_PRETRAINED_CONFIG_ARCHIVE_MAP is deprecated and will be removed in v5 of Transformers."}
    assert _keyword_opening(constant) == constant
    keyword = {"kind": "name", "owner": "torch.profiler.profiler.profile", "old": "use_cuda", "new": None,
               "message": "use_cuda is deprecated, use activities argument instead"}
    assert _keyword_opening(keyword)["kind"] == "param"
    # where the history tracks the callable's parameters, they decide
    tracked = {"torch.profiler.profiler.profile": {"present": "0-3", "params": [["activities", "0-3"]]}}
    assert _keyword_opening(keyword, tracked) == keyword
    tracked["torch.profiler.profiler.profile"]["params"].append(["use_cuda", "0-2"])
    assert _keyword_opening(keyword, tracked)["kind"] == "param"
