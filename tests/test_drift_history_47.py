"""Issue #25, drift-47's misses made general (reports from older code: tests/fixtures/diagnose/drift-47-*).

(1) A name first read where a library's wheel first has a new private module is taken as "in every covered release" only
when that module is a compiled one the wheels know from a .pyi stub (tables/api-history-before.toml [[stub]]: torch._C).
huggingface_hub 0.21.0's new serialization._torch is a .py file: `split_torch_state_dict_into_shards` came with it, so an
older huggingface_hub lacks it (the history said every release had it, and told a 0.19.4 user that theirs did).
(2) lazy_loader's `attach(submod_attrs={...})` is a lazy import table: huggingface_hub 0.8.0-0.9.1's top level exports
what it declares (the history had only its submodules, so every top-level name showed a false gap, A -> B -> A).
(3) An installed version is placed among the releases by its release part: a local label (`2.1.2+cu121`) dropped, a
dev or pre-release before its release, an uncovered patch at the latest covered patch of its minor before it (not the
minor's first patch, which may be the one patch that lacked the name: transformers 4.35.0's is_flash_attn_available).
"""

from __future__ import annotations

import ast

import pytest

from kb.apidrift.answer import answer
from kb.apidrift.exports import _import_structure
from kb.apidrift.history import load_history, version_order
from drift_support import DEV, drift_of


@pytest.fixture(scope="module")
def history():  # noqa: ANN201 - the shipped History
    return load_history()


def test_a_new_py_module_dates_its_names(history) -> None:
    doc = answer("import-name", {"name": "split_torch_state_dict_into_shards", "module": "huggingface_hub"},
                 {"huggingface_hub_version": "0.19.4"}, None)
    assert doc["added_in"] == "0.21.0"
    assert doc["accepted"].startswith("0.21.0–")
    assert not any("has it" in fact for fact in doc["facts"])
    assert any(fix.startswith("upgrade: pip install -U 'huggingface_hub>=0.21'") for fix in doc["fixes"])
    assert history.stub_packages("huggingface_hub") == []


def test_a_compiled_stub_still_reads_as_older(history) -> None:
    """torch 1.6.0 first ships torch/_C/_VariableFunctions.pyi: `torch.where` is first read there, not added there."""
    assert history.stub_packages("torch") == ["torch._C"]
    doc = answer("import-name", {"name": "where", "module": "torch"}, {}, None)
    assert doc["added_in"] is None
    assert any("compiled code" in fact for fact in doc["facts"])


def test_reports_of_split_torch_name_the_release() -> None:
    """drift-41's reports of the name (drift-47's two were drift-46's too, and left it)."""
    for name in ("drift-41-InstantMesh-116.txt", "drift-41-SpeechTokenizer-12.txt", "drift-41-cobra-29.txt"):
        drift = drift_of((DEV / name).read_text())
        assert drift["added_in"] == "0.21.0", name


def test_lazy_loader_attach_is_a_lazy_table() -> None:
    source = (
        "__getattr__, __dir__, __all__ = _attach(\n"
        "    __name__,\n"
        "    submodules=['keras_mixin'],\n"
        "    submod_attrs={'hf_api': ['HfApi', 'list_models'], 'utils.endpoint_helpers': ['ModelFilter']},\n"
        ")\n"
        "setup(name='x', submodules=['not_a_lazy_table'])\n"
    )
    table = _import_structure(ast.parse(source))
    assert table == {"keras_mixin": [], "hf_api": ["HfApi", "list_models"], "utils.endpoint_helpers": ["ModelFilter"]}


def test_huggingface_hub_0_8_exports_its_lazy_names(history) -> None:
    """0.8.0-0.9.1 declared their top-level names only through attach(submod_attrs=...); 0.10.0 added TYPE_CHECKING
    imports. The rebuilt history has no gap there (checked against the wheels: ModelFilter in 0.8.1's __init__)."""
    having = history.export_versions("huggingface_hub", "huggingface_hub", "ModelFilter")
    assert {"0.8.1", "0.9.0", "0.9.1"} <= set(having)
    versions = history.versions("huggingface_hub")
    assert having == versions[versions.index(having[0]):versions.index(having[-1]) + 1]  # one span, no gap
    assert having[-1] == "0.23.5"
    for version in ("0.8.1", "0.9.1"):
        assert {"hf_hub_download", "HfApi", "snapshot_download"} <= history.exports("huggingface_hub", "huggingface_hub", version)
    doc = answer("import-name", {"name": "ModelFilter", "module": "huggingface_hub"}, {"huggingface_hub_version": "0.24.0"}, None)
    assert doc["removed_in"] == "0.24.0"
    assert not any("gap" in fact for fact in doc["facts"])


@pytest.mark.parametrize(("version", "order"), [
    ("2.1.2+cu121", (2, 1, 2, 0)), ("2.0.0a0+git5a54537", (2, 0, 0, -1)), ("4.36.0rc1", (4, 36, 0, -1)),
    ("4.35.0.dev0", (4, 35, 0, -1)), ("0.41.3.post2", (0, 41, 3, 2)), ("4.3", (4, 3, 0, 0)), ("4.3.0", (4, 3, 0, 0)),
])
def test_version_order(version: str, order: tuple[int, ...]) -> None:
    assert version_order(version) == order


def test_version_order_sorts_around_the_release() -> None:
    assert version_order("4.36.0rc1") < version_order("4.36.0") < version_order("4.36.0.post1") < version_order("4.36.1")
    assert version_order("2.1.2+cu121") < version_order("2.1.10")
    assert version_order("2.0.0a0") < version_order("2.0") == version_order("2.0.0")


@pytest.mark.parametrize(("lib", "installed", "release"), [
    ("torch", "2.1.2+cu121", "2.1.2"),
    ("torch", "2.0.0a0+git5a54537", "2.0.0"),
    ("transformers", "4.35.0rc1", "4.35.0"),
    ("transformers", "4.35.9", "4.35.2"),  # an uncovered patch: the latest covered one before it
    ("transformers", "4.35", "4.35.0"),
    ("transformers", "4.36.0.dev0", "4.36.0"),
])
def test_release_of_an_installed_version(history, lib: str, installed: str, release: str) -> None:
    assert history.release(lib, installed) == release


def test_a_patch_that_restored_a_name_is_not_a_gap() -> None:
    """is_flash_attn_available: 4.34.x, gone in 4.35.0, back in 4.35.1-4.38.2, gone in 4.39.0."""
    fields = {"name": "is_flash_attn_available", "module": "transformers.utils"}
    on_4352 = answer("import-name", fields, {"transformers_version": "4.35.2+local"}, None)
    assert any(f.startswith("the installed transformers 4.35.2+local has it") for f in on_4352["facts"])
    on_4350 = answer("import-name", fields, {"transformers_version": "4.35.0"}, None)
    assert any("lies in a gap: transformers 4.35.0 lacks it" in f for f in on_4350["facts"])
    assert on_4350["removed_in"] == "4.39.0"
    torch = answer("import-name", {"name": "LRScheduler", "module": "torch.optim.lr_scheduler"},
                   {"torch_version": "2.1.2+cu121"}, None)
    assert any(f.startswith("the installed torch 2.1.2+cu121 has it") for f in torch["facts"])
    old = answer("import-name", {"name": "LRScheduler", "module": "torch.optim.lr_scheduler"},
                 {"torch_version": "1.13.1+cu117"}, None)
    assert any(fix.startswith("upgrade: pip install -U 'torch>=2.0'") for fix in old["fixes"])


def test_a_pin_excludes_the_release_that_lacked_it() -> None:
    from kb.apidrift.answer import _pin

    versions = ["4.33.3", "4.34.0", "4.34.1", "4.35.0", "4.35.1", "4.35.2", "4.38.2", "4.39.0"]
    having = ["4.34.0", "4.34.1", "4.35.1", "4.35.2", "4.38.2"]
    assert _pin("transformers", versions, having) == "transformers>=4.34,<4.39,!=4.35.0"
    long_gap = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"]
    assert _pin("x", long_gap, ["1.1", "1.6"]) == "x>=1.6,<1.7"  # four releases lack it: the last span alone
    assert _pin("x", long_gap, ["1.0", "1.1"]) == "x<1.2"
    doc = answer("import-name", {"name": "is_flash_attn_available", "module": "transformers.utils"}, {}, None)
    assert "pip install 'transformers>=4.34,<4.39,!=4.35.0'" in " ".join(doc["fixes"])


def test_reread_undone_reads_a_patch_whose_source_differs() -> None:
    """A name present at both ends of a minor and gone in a patch between them (A -> B -> A): the bisection, which
    reads a fact only where its ends differ, kept it; the text diff of that patch sends its module to be read again."""
    from kb.apidrift.bisect import bisect_minor, reread_undone

    previous = {"exports": {"pkg.utils": ["a", "gone_then_back"]}}
    latest = {"version": "1.2.2", "built": "2024", "modules": ["pkg", "pkg.utils"],
              "exports": {"pkg.utils": ["a", "gone_then_back"]}}
    truth = {"1.2.0": ["a"], "1.2.1": ["a", "gone_then_back"]}
    reads: list[tuple[str, list[str]]] = []

    def read(version: str, keys: dict[str, list[str]]) -> dict:
        reads.append((version, keys.get("exports", [])))
        return {"version": version, "built": "2024", "modules": ["pkg", "pkg.utils"], "probed": True,
                "exports": {m: truth[version] for m in keys.get("exports", [])}}

    patches = bisect_minor(["1.2.0", "1.2.1"], latest, {}, read, {})
    assert all(p["exports"]["pkg.utils"] == ["a", "gone_then_back"] for p in patches)  # the blind spot
    diffs = {"1.2.0": ["pkg.utils", "pkg.private_helper"], "1.2.1": []}
    assert reread_undone(patches, latest, previous, read, diffs) == 1
    assert patches[0]["exports"]["pkg.utils"] == ["a"]
    assert patches[1]["exports"]["pkg.utils"] == ["a", "gone_then_back"]
    assert latest["exports"]["pkg.utils"] == ["a", "gone_then_back"]  # the minor's last release is not touched
    assert ("1.2.0", ["pkg.utils"]) in reads and not any(v == "1.2.1" for v, keys in reads if keys)
    # an unreadable patch: build.py's read() gives the minor's last release back, unprobed; its sets stay as they are
    again = bisect_minor(["1.2.0", "1.2.1"], latest, {}, read, {})
    again[0]["exports"] = {"pkg.utils": ["a"]}  # what an earlier reading of that patch found
    assert reread_undone(again, latest, previous, lambda v, k: {**latest, "version": v}, diffs) == 0
    assert again[0]["exports"]["pkg.utils"] == ["a"]  # not the minor's last release's sets
    assert reread_undone(patches, latest, previous, read, {"1.2.0": None}) == 0  # no diff known: left as it was


def test_the_rebuilt_history_sees_a_name_gone_inside_a_minor(history) -> None:
    """transformers 4.48.0 and 4.48.1's pytorch_utils.py lack is_torch_greater_or_equal_than_1_13; 4.47.1 and
    4.48.2 have it (zip grep of the wheels; drift-37-hymba-6.txt)."""
    having = history.export_versions("transformers", "transformers.pytorch_utils", "is_torch_greater_or_equal_than_1_13")
    assert "4.47.1" in having and "4.48.2" in having
    assert "4.48.0" not in having and "4.48.1" not in having
    doc = answer("import-name", {"name": "is_torch_greater_or_equal_than_1_13", "module": "transformers.pytorch_utils"},
                 {"transformers_version": "4.48.1"}, None)
    assert any("lies in a gap: transformers 4.48.0–4.48.1 lacks it" in fact for fact in doc["facts"])


def test_a_gap_that_a_stub_ends_is_not_a_removal() -> None:
    """torch 1.0.x's files declare `argsort`, 1.1-1.5's do not, 1.6.0's torch._C._VariableFunctions stub does: the
    history's gap 1.1.0-1.5.1 is what the files declare, not a removal; no 'gone in 1.1.0', no 'lies in a gap'."""
    for facts in ({}, {"torch_version": "1.3.1"}):
        doc = answer("import-name", {"name": "argsort", "module": "torch"}, facts, None)
        assert doc["accepted"] == "1.0.0–2.15.0" or doc["accepted"].startswith("1.0.0–")
        assert doc["removed_in"] is None
        assert not any("also missing" in f or "lies in a gap" in f for f in doc["facts"])
        assert any("compiled code" in f for f in doc["facts"])
