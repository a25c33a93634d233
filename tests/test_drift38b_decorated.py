"""kb/apidrift/decorated.py: huggingface_hub's @_deprecate_method read as the history's deprecation facts."""

from __future__ import annotations

import ast
import gzip
import json
from pathlib import Path

import pytest

from kb.apidrift import decorated
from kb.apidrift.history import unpack
from kb.knowledge.tables import api_history_path

WHEELS = Path.home() / ".cache" / "kb" / "apidrift" / "wheels"

SOURCE = '''
@validate_hf_hub_args
@_deprecate_method(version="0.26", message="Use `hf_hub_download` instead.")
def cached_download(url):
    pass

class HfApi:
    @_deprecate_method(version="0.32", message="Please use `update_repo_settings` instead.")
    def update_repo_visibility(self, repo_id):
        pass

    # @_deprecate_method(version="1.0", message="Use `huggingface_hub.login` instead.")
    def save_token(self):
        pass

class Repository:
    @_deprecate_method(version="1.0", message="Please prefer the http-based alternatives.")
    def __init__(self):
        pass
'''


def test_decorated_functions_methods_and_classes() -> None:
    found = decorated._decorated(ast.parse(SOURCE), "_deprecate_method")
    assert [(path, old) for path, old, _m in found] == [
        (["cached_download"], "cached_download"), (["HfApi", "update_repo_visibility"], "update_repo_visibility"),
        (["Repository"], "Repository")]  # a commented-out decorator is not read; a deprecated __init__ names its class
    assert found[0][2] == "`cached_download` is deprecated and will be removed in version 0.26. Use `hf_hub_download` instead."


def test_add_facts_owner_under_the_public_path_and_no_duplicate() -> None:
    scans = {"0.25.2": [{"module": "huggingface_hub.file_download", "path": ["cached_download"], "old": "cached_download",
                         "new": "hf_hub_download", "message": "m"},
                        {"module": "huggingface_hub.hf_api", "path": ["HfApi", "list_files_info"], "old": "list_files_info",
                         "new": "list_repo_tree", "message": "m2"}]}
    already = {"kind": "name", "owner": "huggingface_hub.HfApi.list_files_info", "old": "list_files_info", "new": None,
               "message": "stated by a warning"}
    records = [{"version": "0.25.0", "exports": {"huggingface_hub": ["HfApi", "cached_download"]}, "facts": [already]},
               {"version": "0.25.2", "exports": {"huggingface_hub": ["HfApi"]}, "facts": [already]}]
    original = decorated.cached_scan
    decorated.cached_scan = lambda lib, version, wheel, cache=None: scans.get(version)
    try:
        added = decorated.add_facts("huggingface_hub", records, lambda v: None)
    finally:
        decorated.cached_scan = original
    assert added == 2
    first = records[0]["facts"]
    assert first[0] is already and len(first) == 2  # the stated one kept, not doubled
    assert first[1] == {"kind": "name", "owner": "huggingface_hub.cached_download", "old": "cached_download",
                        "new": "hf_hub_download", "message": "m"}
    assert records[1]["facts"][1]["owner"] == "huggingface_hub.file_download.cached_download"  # not exported there
    assert decorated.add_facts("peft", records, lambda v: None) == 0


@pytest.mark.skipif(not (WHEELS / "huggingface_hub-0.25.2-py3-none-any.whl").exists(), reason="wheel not cached")
def test_scan_of_a_real_wheel() -> None:
    found = {tuple(f["path"]): f["new"] for f in decorated.scan("huggingface_hub", WHEELS / "huggingface_hub-0.25.2-py3-none-any.whl")}
    assert found[("cached_download",)] == "hf_hub_download"
    assert found[("filename_to_url",)] == "hf_hub_url"


def test_shipped_history_records_cached_download_replacement() -> None:
    with gzip.open(api_history_path(), "rt", encoding="utf-8") as f:
        entry = unpack(json.load(f)["libraries"]["huggingface_hub"])
    found = [r for r in entry["renames"] if r["kind"] == "name" and r["old"] == "cached_download"]
    assert found and found[0]["new"] == "hf_hub_download"
    assert found[0]["first_without"] == "0.26.0"
