"""API history v2 (issue #25): members, enum values, defaults and Literal values read from source; patch
releases probed so a change is dated to the release that made it; sdists and .pyi stubs read."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

from kb.apidrift import members
from kb.apidrift.bisect import changed
from kb.apidrift.exports import ModuleIndex
from kb.apidrift.history import History
from kb.apidrift.merge import merge
from kb.apidrift.params import Resolver
from kb.apidrift.releases import choose_file, latest_patches, patches_by_minor
from kb.apidrift.wheel import Wheel

CACHE_V1 = '''
import enum
import torch
from typing import Literal, Optional

class ExplicitEnum(str, enum.Enum):
    pass

class OptimizerNames(ExplicitEnum):
    ADAMW = "adamw_torch"
    PAGED = "paged_adamw_32bit"

class Cache(torch.nn.Module):
    def get_seq_length(self):
        return 0
    def get_max_length(self):
        return None

class DynamicCache(Cache):
    def __init__(self):
        self.key_cache = []

def load(f, map_location=None, *, weights_only: Optional[bool] = None, side: Literal["left", "right"] = "right"):
    if weights_only is None:
        weights_only = False
    return f
'''
# 1.1.1 renamed get_max_length (kept by 1.1.0) and dropped a value; 1.1.2 changed load's effective default
CACHE_V2 = CACHE_V1.replace("def get_max_length", "def get_max_cache_shape").replace('    PAGED = "paged_adamw_32bit"\n', "")
CACHE_V3 = CACHE_V2.replace("weights_only = False", "weights_only = _default_to_weights_only(f)")
INIT = "from .cache import DynamicCache, Cache, load\n"


def _wheel(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        for file, text in files.items():
            z.writestr(file, text)
    return path


def _extract(tmp_path: Path, version: str, cache_source: str, built: str) -> dict:
    """What extract.extract() records for these sections, on a wheel written here."""
    wheel = Wheel(_wheel(tmp_path, f"lib-{version}-py3-none-any.whl", {"lib/__init__.py": INIT, "lib/cache.py": cache_source}), "lib")
    index = ModuleIndex(wheel)
    resolver = Resolver(index)
    sig = resolver.signature("lib.load")
    out_members = {}
    for path in ("lib.DynamicCache", "lib.cache.OptimizerNames"):
        module, node = resolver.find(path)
        names, external = members.class_members(resolver, module, node)
        out_members[path] = {"members": sorted(names), "external": external}
    enums = {"lib.cache.OptimizerNames": members.enum_values(resolver.find("lib.cache.OptimizerNames")[1])}
    return {"library": "lib", "version": version, "built": built, "modules": wheel.modules(),
            "exports": {m: sorted(index.exports(m)) for m in wheel.modules()},
            "params": {"lib.load": {"params": sig.params, "external": sig.external, "kind": sig.kind}},
            "defaults": {"lib.load": sig.defaults}, "literals": {"lib.load": sig.literals},
            "members": out_members, "enums": enums, "facts": [], "model_types": [], "rope": {}, "parse_failures": []}


def test_members_enums_defaults_and_literals_are_read_from_source(tmp_path):
    release = _extract(tmp_path, "1.0.0", CACHE_V1, "2024-01-01")
    cache = release["members"]["lib.DynamicCache"]
    assert {"key_cache", "get_seq_length", "get_max_length"} <= set(cache["members"])  # inherited + self.x
    assert "__init__" not in cache["members"]
    assert cache["external"] == ["torch.nn.Module"]  # a base in another tracked library
    assert release["enums"]["lib.cache.OptimizerNames"] == ["adamw_torch", "paged_adamw_32bit"]
    assert release["defaults"]["lib.load"] == {"map_location": "None", "weights_only": "None -> False", "side": "'right'"}
    assert release["literals"]["lib.load"] == {"side": ["left", "right"]}


def _probed(release: dict, latest: dict) -> dict:
    """A patch as bisect.probe() leaves it: the minor's last release with the changed keys read from the patch."""
    keys = changed(release, latest)
    out = {**latest, "version": release["version"], "built": release["built"], "probed": True}
    for section, names in keys.items():
        out[section] = {**latest[section]}
        for name in names:
            out[section].pop(name, None)
            if name in release[section]:
                out[section][name] = release[section][name]
    return out


def test_a_change_inside_a_minor_is_dated_to_its_patch(tmp_path):
    v100 = _extract(tmp_path, "1.0.0", CACHE_V1, "2024-01-01")
    v110 = _extract(tmp_path, "1.1.0", CACHE_V1, "2024-02-01")
    v111 = _extract(tmp_path, "1.1.1", CACHE_V2, "2024-02-10")
    v112 = _extract(tmp_path, "1.1.2", CACHE_V3, "2024-02-20")
    keys = changed(v100, v112)
    assert set(keys) == {"members", "enums", "defaults"}
    assert keys["members"] == ["lib.DynamicCache", "lib.cache.OptimizerNames"]  # an enum member went too
    h = History(merge({"lib": [v100, _probed(v110, v112), _probed(v111, v112), v112]}))
    assert h.versions("lib") == ["1.0.0", "1.1.0", "1.1.1", "1.1.2"]
    assert h.probed("lib") == ["1.1.0", "1.1.1"]
    present, having = h.member_versions("lib", "lib.DynamicCache", "get_max_length")
    assert having == ["1.0.0", "1.1.0"] and len(present) == 4
    assert h.changes("lib", present, having) == [{"change": "removed", "last_with": "1.1.0", "first_without": "1.1.1"}]
    _, shape = h.member_versions("lib", "lib.DynamicCache", "get_max_cache_shape")
    assert h.changes("lib", present, shape) == [{"change": "added", "last_without": "1.1.0", "first_with": "1.1.1"}]
    assert h.members("lib", "lib.DynamicCache", "1.1.2") >= {"get_max_cache_shape", "key_cache"}
    assert h.enum_values("lib", "lib.cache.OptimizerNames", "1.1.0") == {"adamw_torch", "paged_adamw_32bit"}
    assert h.value_versions("lib", "lib.cache.OptimizerNames", "paged_adamw_32bit")[1] == ["1.0.0", "1.1.0"]
    assert h.default_history("lib", "lib.load", "weights_only") == [
        ("None -> False", ["1.0.0", "1.1.0", "1.1.1"]), ("None -> _default_to_weights_only(f)", ["1.1.2"])]
    assert h.defaults("lib", "lib.load", "1.1.2")["weights_only"] == "None -> _default_to_weights_only(f)"
    assert h.literal_values("lib", "lib.load", "side", "1.0.0") == ["left", "right"]
    assert h.find_classes("OptimizerNames") == [("lib", "lib.cache.OptimizerNames")]
    assert h.find_classes("DynamicCache", "lib") == [("lib", "lib.DynamicCache")]
    assert h.members("lib", "lib.Missing", "1.1.2") is None and h.enum_values("lib", "lib.cache.X", "1.0.0") is None


def test_an_sdist_and_a_stub_are_read(tmp_path):
    path = tmp_path / "deepspeed-0.6.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, text in {"deepspeed-0.6.0/deepspeed/__init__.py": "from .engine import initialize\n",
                           "deepspeed-0.6.0/deepspeed/engine.py": "def initialize(args=None, model=None):\n    pass\n",
                           "deepspeed-0.6.0/deepspeed/_C.pyi": "def fused(x: int) -> int: ...\n",
                           "deepspeed-0.6.0/setup.py": "print('never run')\n"}.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1650000000
            tar.addfile(info, io.BytesIO(data))
    wheel = Wheel(path, "deepspeed")
    assert wheel.modules() == ["deepspeed", "deepspeed._C", "deepspeed.engine"]
    assert wheel.built == "2022-04-15"
    index = ModuleIndex(wheel)
    assert "initialize" in index.exports("deepspeed") and index.exports("deepspeed._C") == {"fused"}
    assert Resolver(index).signature("deepspeed.initialize").params == ["args", "model"]


def test_release_choice_and_patches():
    versions = ["4.45.0", "4.45.1", "4.45.2", "4.46.0", "4.46.3", "4.46.1", "4.47.0rc1", "1.2.0"]
    assert latest_patches("transformers", versions) == ["4.45.2", "4.46.3"]  # 1.2 is before the cut-off (2.0)
    assert patches_by_minor("transformers", versions) == {"4.45.2": ["4.45.0", "4.45.1"], "4.46.3": ["4.46.0", "4.46.1"]}
    files = [{"filename": "torch-2.6.0-cp310-cp310-manylinux1_x86_64.whl", "size": 800},
             {"filename": "torch-2.6.0-cp310-none-macosx_11_0_arm64.whl", "size": 70}]
    assert choose_file("torch", files)["filename"].endswith("macosx_11_0_arm64.whl")
    assert choose_file("deepspeed", [{"filename": "deepspeed-0.6.0.tar.gz", "size": 5}])["filename"] == "deepspeed-0.6.0.tar.gz"


def test_the_shipped_form_parses_a_section_only_when_asked(tmp_path, monkeypatch):
    """Each library's sections are packed on their own: a member lookup inflates that library's members (and
    what it needs), not its exports, nor any section of another library; an older build's whole-library
    packing still reads."""
    import gzip
    import json

    from kb.apidrift import history
    from kb.apidrift.history import pack, unpack

    monkeypatch.setattr(history, "_SMALL", 0)  # the test tables are tiny: pack every section
    v1 = _extract(tmp_path, "1.0.0", CACHE_V1, "2024-01-01")
    v2 = _extract(tmp_path, "1.1.0", CACHE_V2, "2024-02-01")
    merged = merge({"lib": [v1, v2], "other": [{**v1, "library": "other"}]})
    path = tmp_path / "h.json.gz"
    path.write_bytes(gzip.compress(json.dumps(pack(merged)).encode()))
    with gzip.open(path, "rt") as f:
        h = History(json.load(f))

    def parsed(lib: str, section: str) -> bool:
        return not isinstance(dict.__getitem__(dict.__getitem__(h._libs, lib), section), str)

    assert not any(parsed(lib, s) for lib in ("lib", "other") for s in ("exports", "members", "renames"))
    assert h.versions("lib") == ["1.0.0", "1.1.0"] and h.release("lib", "1.1.0") == "1.1.0"
    assert h.member_versions("lib", "lib.DynamicCache", "get_max_length")[1] == ["1.0.0"]
    assert parsed("lib", "members") and not parsed("lib", "exports") and not parsed("other", "members")
    plain = History(merged)
    assert plain.member_versions("lib", "lib.DynamicCache", "get_max_length") == h.member_versions(
        "lib", "lib.DynamicCache", "get_max_length")
    assert unpack(dict.__getitem__(pack(merged)["libraries"], "lib")) == json.loads(json.dumps(merged["libraries"]["lib"]))
    import base64
    import zlib

    whole = {lib: history._PACKED + base64.b64encode(zlib.compress(json.dumps(entry).encode())).decode()
             for lib, entry in merged["libraries"].items()}  # the first v2 builds: a library packed whole
    older = History({**pack(merged), "libraries": whole})
    assert older.member_versions("lib", "lib.DynamicCache", "get_max_length") == plain.member_versions(
        "lib", "lib.DynamicCache", "get_max_length")


def test_bisect_reads_few_patches_and_dates_each_change_to_its_patch():
    from kb.apidrift.bisect import bisect_minor

    patches = [f"2.3.{i}" for i in range(7)]  # 2.3.7 is the minor's last, read in full
    # module m0's exports changed in 2.3.0, m4's in 2.3.4, m7's in 2.3.7 itself; m9 unchanged
    changes = {"m0": 0, "m4": 4, "m7": 7}
    final = {"version": "2.3.7", "built": "2024-07-07", "modules": ["m0", "m4", "m7", "m9"],
             "exports": {m: ["new"] for m in ("m0", "m4", "m7", "m9")}}

    def at(j: int) -> dict:
        return {m: ["old"] if j < changes.get(m, -1) else ["new"] for m in final["exports"]}

    reads: list[tuple[str, tuple]] = []

    def read(version: str, keys: dict) -> dict:
        reads.append((version, tuple(keys["exports"])))
        return {**final, "version": version, "built": "2024-07-0" + version[-1], "exports": at(patches.index(version))}

    keys = {"exports": ["m0", "m4", "m7"]}
    out = bisect_minor(patches, final, keys, read, {v: "2024-07-01" for v in patches})
    assert [r["version"] for r in out] == patches and all(r["probed"] for r in out)
    assert len(reads) <= 5 and reads[0] == ("2.3.0", ("m0", "m4", "m7"))  # B.0, then bisection, not all seven
    assert all(keys_read != ("m0", "m4", "m7") for _v, keys_read in reads[1:])  # m0 settled at B.0
    for j, release in enumerate(out):
        assert release["exports"] == at(j), release["version"]


def test_bisect_dates_each_of_several_changes_of_one_export_set_inside_a_minor():
    """Regression (trl 0.7.x): the export set of `trl` grew at 0.7.2, 0.7.3, 0.7.5, 0.7.9, 0.7.10 and 0.7.11.
    The bisection used to find only the first patch with the final set and give every earlier patch the set
    just before it (0.7.10's), the probed 0.7.0 included: `trl.RewardConfig` was dated to 0.7.0."""
    from kb.apidrift.bisect import bisect_minor

    patches = [f"0.7.{i}" for i in range(11)]  # 0.7.11: the minor's last, read in full
    added = {"RewardConfig": 2, "is_wandb_available": 2, "IterativeSFTTrainer": 3, "is_npu_available": 5,
             "is_bitsandbytes_available": 9, "setup_chat_format": 10, "ModelConfig": 11}

    def exports(j: int) -> list[str]:
        return sorted(["PPOTrainer"] + [n for n, first in added.items() if j >= first])

    final = {"version": "0.7.11", "built": "2024-02-15", "modules": ["trl", "trl.core"],
             "exports": {"trl": exports(11), "trl.core": ["set_seed"]}}
    reads: list[str] = []

    def read(version: str, keys: dict) -> dict:
        reads.append(version)
        return {**final, "version": version, "built": "2024-01-01", "exports": {**final["exports"], "trl": exports(patches.index(version))}}

    out = bisect_minor(patches, final, {"exports": ["trl"]}, read, {})
    assert [r["exports"]["trl"] for r in out] == [exports(j) for j in range(11)]
    assert "RewardConfig" not in out[0]["exports"]["trl"] and "RewardConfig" in out[2]["exports"]["trl"]
    assert all(r["exports"]["trl.core"] == ["set_seed"] for r in out)
    assert len(reads) == len(set(reads)) and len(reads) < 11  # no patch read twice; 0.7.6-0.7.8 (one span) not read


def test_bisect_keeps_a_single_change_cheap_when_another_key_changes_often():
    from kb.apidrift.bisect import bisect_minor

    patches = [f"1.0.{i}" for i in range(15)]
    final = {"version": "1.0.15", "built": "x", "modules": ["a", "b"], "exports": {"a": ["new"], "b": ["15"]}}
    reads: list[tuple[str, tuple]] = []

    def read(version: str, keys: dict) -> dict:
        j = patches.index(version)
        reads.append((version, tuple(keys["exports"])))
        return {**final, "version": version, "exports": {"a": ["old"] if j < 9 else ["new"], "b": [str(j)]}}

    out = bisect_minor(patches, final, {"exports": ["a", "b"]}, read, {})
    assert [r["exports"]["a"] for r in out] == [["old"]] * 9 + [["new"]] * 6
    assert [r["exports"]["b"] for r in out] == [[str(j)] for j in range(15)]  # changed at every patch: all read
    assert sum("a" in keys for _v, keys in reads) <= 5  # "a" still bisected in ~log2(15) probes


def test_lineage_pairs_one_name_gone_with_one_come_only_when_they_share_a_word():
    def release(version: str, params: list[str]) -> dict:
        return {"library": "trl", "version": version, "built": "2024-01-0" + version[-1], "modules": ["trl"],
                "exports": {"trl": ["SFTConfig"]}, "facts": [], "model_types": [], "rope": {},
                "params": {"trl.SFTConfig": {"params": params, "external": [], "kind": "class"},
                           "trl.Other": {"params": params[:1] + (["b"] if version != "0.1.0" else ["a"]), "external": [], "kind": "class"}}}

    h = History(merge({"trl": [release("0.1.0", ["packing", "max_seq_length"]), release("0.2.0", ["packing", "max_length"])]}))
    lineage = [r for r in h.renames("trl") if r.get("source") == "lineage"]
    assert lineage == [{"kind": "param", "owner": "trl.SFTConfig", "old": "max_seq_length", "new": "max_length",
                        "source": "lineage", "message": "`max_seq_length` went and `max_length` came in the same release (0.2.0)",
                        "since": "0.2.0", "until": "0.1.0", "first_without": "0.2.0", "seen": "1"}]  # a -> b: no shared word


def _fact(old: str, owner: str = "lib.Trainer") -> dict:
    return {"kind": "param", "owner": owner, "old": old, "new": None, "message": f"`{old}` is deprecated"}


def test_a_deprecation_is_dated_to_the_patch_that_first_states_it():
    """A message the minor's last release states and the previous minor's did not is bisected over the patches,
    like a removal: `since` is the first patch stating it, the release before it the last that did not."""
    from kb.apidrift.bisect import bisect_minor, date_facts, fact_key

    patches = [f"2.3.{i}" for i in range(7)]  # 2.3.7: the minor's last, read in full
    stated = {"a": 0, "b": 5, "c": 7}  # index of the first patch stating each message; "gone" last stated by 2.3.4
    previous = {"version": "2.2.4", "built": "2024-06-01", "modules": [], "facts": [_fact("gone"), _fact("kept")]}
    final = {"version": "2.3.7", "built": "2024-07-07", "modules": [], "facts": [_fact("kept")] + [_fact(n) for n in stated]}
    reads: list[tuple[str, int]] = []

    def read(version: str, keys: dict) -> dict:
        j = patches.index(version)
        reads.append((version, len(keys["facts"])))
        here = [_fact(n) for n, first in stated.items() if j >= first] + ([_fact("gone")] if j <= 4 else [])
        return {"fact_keys": {fact_key(f): f for f in here if fact_key(f) in keys["facts"]}}

    out = bisect_minor(patches, final, {}, lambda v, k: {**final, "version": v}, {})
    date_facts(out, previous, final, read)
    assert reads[0] == ("2.3.0", 4) and len(reads) <= 5  # the four changed messages at B.0, then bisection, not all 7
    assert all(n < 4 for _v, n in reads[1:])  # "a", settled at B.0, is not read again
    for j, release in enumerate(out):
        have = {f["old"] for f in release["facts"]}
        assert have == {"kept"} | {n for n, first in stated.items() if j >= first} | ({"gone"} if j <= 4 else set()), j
    h = History(merge({"lib": [{**previous, "exports": {}, "params": {}}] + [{**r, "exports": {}, "params": {}} for r in out]
                       + [{**final, "exports": {}, "params": {}}]}))
    renames = {r["old"]: r for r in h.renames("lib")}
    assert renames["b"]["since"] == "2.3.5"  # not 2.3.0, the minor's first patch
    assert renames["c"]["since"] == "2.3.7" and renames["a"]["since"] == "2.3.0"
    assert renames["gone"]["until"] == "2.3.4" and renames["kept"]["since"] == "2.2.4"


def test_probe_facts_reads_a_message_under_the_public_owner_as_extract_does(tmp_path, monkeypatch):
    from kb.apidrift import deprecations
    from kb.apidrift.bisect import fact_key, probe_facts

    trainer = ('import warnings\n\nclass Trainer:\n    def __init__(self, tokenizer=None, processing_class=None):\n'
               '        if tokenizer is not None:\n'
               '            warnings.warn("`tokenizer` is deprecated, use `processing_class` instead")\n')
    path = _wheel(tmp_path, "lib-1.0.1-py3-none-any.whl", {"lib/__init__.py": "from .trainer import Trainer\n",
                                                             "lib/trainer.py": trainer, "lib/other.py": "x = 1\n"})
    wheel = Wheel(path, "lib")
    expected = deprecations.facts(wheel.tree("lib.trainer"), "lib.trainer", {"lib.trainer.Trainer": "lib.Trainer"})
    assert [f["owner"] for f in expected] == ["lib.Trainer"]
    absent = fact_key(_fact("max_seq_length"))
    monkeypatch.setattr("kb.apidrift.bisect.targets", lambda: {"lib": {}})  # "lib" is no library of targets.toml
    found = probe_facts("lib", "1.0.1", path, [fact_key(expected[0]), absent])
    assert list(found["fact_keys"]) == [fact_key(expected[0])] and found["fact_keys"][fact_key(expected[0])] == expected[0]


def test_yanked_releases_are_covered_and_named():
    from kb.apidrift.build import annotate

    releases = [{"version": v, "built": "2024-10-01", "modules": ["lib", "lib.deepspeed"] if v < "4.46" else ["lib"],
                 "exports": {}, "params": {}, "facts": [_fact("old")] if v >= "4.45.1" else []}
                for v in ("4.45.0", "4.45.1", "4.46.0", "4.46.1")]
    merged = merge({"lib": releases})
    annotate(merged["libraries"]["lib"], ["4.46.0", "9.9.9"])
    h = History(merged)
    assert h.yanked("lib") == ["4.46.0"]  # only the covered ones
    assert h.module_versions("lib", "lib.deepspeed")[-1] == "4.45.1"
    assert h.first_regular("lib", "4.46.0") == "4.46.1" and h.first_regular("lib", "4.45.1") == "4.45.1"
    rename = h.renames("lib")[0]
    assert rename["since"] == "4.45.1" and rename["since_last_without"] == "4.45.0"


def test_a_yanked_release_is_listed_and_its_own_file_chosen(tmp_path, monkeypatch):
    import json

    from kb.apidrift import releases

    files = [{"filename": "transformers-4.46.0-py3-none-any.whl", "size": 9, "yanked": "broke imports"},
             {"filename": "transformers-4.46.1-py3-none-any.whl", "size": 9},
             {"filename": "transformers-4.46.2-py3-none-any.whl", "size": 8, "yanked": False},
             {"filename": "transformers-4.46.2.tar.gz", "size": 5, "yanked": True}]
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "transformers.json").write_text(json.dumps({"files": files}))
    monkeypatch.setattr(releases, "CACHE", tmp_path)
    assert releases.available_versions("transformers", refresh=False) == ["4.46.0", "4.46.1", "4.46.2"]
    assert releases.yanked_versions("transformers") == ["4.46.0"]  # 4.46.2 has a regular file
    index = releases.index_files("transformers", refresh=False)
    assert releases.choose_file("transformers", index["4.46.0"])["filename"].startswith("transformers-4.46.0")
    assert releases.choose_file("transformers", index["4.46.2"])["filename"].endswith(".whl")  # not the yanked sdist


def test_a_yanked_patch_is_read_in_full_and_the_others_bisected(monkeypatch, tmp_path):
    """library_releases: 1.1.0 (yanked) is extracted whole, 1.1.1 probed, 1.1.2 (the minor's last) read in full;
    the deprecation 1.1.1 first states is dated to it."""
    from kb.apidrift import build

    def release(version: str, names: list[str], facts: list[dict]) -> dict:
        return {"library": "lib", "version": version, "built": "2024-01-0" + version[-1], "modules": ["lib"],
                "exports": {"lib": names}, "params": {}, "facts": facts, "model_types": [], "rope": {},
                "defaults": {}, "literals": {}, "members": {}, "enums": {}, "parse_failures": []}

    said = _fact("old")
    source = {"1.0.0": (["a", "b"], []), "1.1.0": (["a"], []), "1.1.1": (["a", "b"], [said]), "1.1.2": (["a", "b"], [said])}
    full_reads: list[str] = []
    probes: list[str] = []

    def extract(lib: str, version: str, path: Path) -> dict:
        full_reads.append(version)
        return release(version, *source[version])

    def probe(lib: str, version: str, path: Path, latest: dict, keys: dict) -> dict:
        probes.append(version)
        return {**latest, "version": version, "probed": True}

    def probe_facts(lib: str, version: str, path: Path, keys: list[str]) -> dict:
        probes.append(version)
        from kb.apidrift.bisect import fact_key

        return {"fact_keys": {fact_key(f): f for f in source[version][1] if fact_key(f) in keys}}

    monkeypatch.setattr(build, "available_versions", lambda lib, refresh=True: list(source))
    monkeypatch.setattr(build, "_yanked", lambda lib: ["1.1.0"])
    monkeypatch.setattr(build, "_upload_dates", lambda lib, versions: {})
    monkeypatch.setattr(build, "find_wheel", lambda lib, version, wheels: tmp_path / f"{lib}-{version}.whl")
    monkeypatch.setattr(build, "cached_extract", extract)
    monkeypatch.setattr(build, "cached_probe", probe)
    monkeypatch.setattr(build, "cached_probe_facts", probe_facts)
    monkeypatch.setattr("kb.apidrift.releases.FIRST_MINOR", {"lib": (1, 0)})
    out = build.library_releases("lib", tmp_path, online=False)
    assert [r["version"] for r in out] == ["1.0.0", "1.1.0", "1.1.1", "1.1.2"]
    assert sorted(full_reads) == ["1.0.0", "1.1.0", "1.1.2"] and set(probes) == {"1.1.1"}
    assert out[1]["exports"]["lib"] == ["a"] and out[1].get("yanked")  # what 1.1.0 itself had, not 1.1.2's
    merged = merge({"lib": out})
    build.annotate(merged["libraries"]["lib"], ["1.1.0"])
    h = History(merged)
    assert h.export_versions("lib", "lib", "b") == ["1.0.0", "1.1.1", "1.1.2"] and h.yanked("lib") == ["1.1.0"]
    rename = h.renames("lib")[0]
    assert (rename["since_last_without"], rename["since"]) == ("1.1.0", "1.1.1")


def _release(version: str, names: list[str]) -> dict:
    return {"library": "lib", "version": version, "built": "2020-01-0" + version[-1], "modules": ["lib"],
            "exports": {"lib": names}, "params": {}, "facts": [], "model_types": [], "rope": {},
            "defaults": {}, "literals": {}, "members": {}, "enums": {}, "parse_failures": []}


def test_the_first_minors_earlier_patches_are_read_in_full_and_cached_releases_need_no_file(monkeypatch, tmp_path):
    """torch 1.0.0 (the first covered minor's earlier patch) has no earlier minor to be bisected against: it is
    read in full, so a name it added is dated to it. A release whose extraction is cached needs no file
    (old torch wheels are deleted once read); an uncached one is fetched, and one with no file is skipped."""
    from kb.apidrift import build

    source = {"1.0.0": ["a"], "1.0.1": ["a", "b"], "1.1.0": ["a", "b", "c"], "1.2.0": ["a", "b", "c", "d"]}
    cached = {"1.0.1", "1.1.0"}
    fetched: list[str] = []

    def extract(lib: str, version: str, path) -> dict:
        if version not in cached:
            assert callable(path)
            path()  # what cached_extract does on a miss
        return _release(version, source[version])

    def find(lib: str, version: str, wheels: Path) -> Path | None:
        fetched.append(version)
        return None if version == "1.2.0" else tmp_path / f"{lib}-{version}.whl"

    monkeypatch.setattr(build, "available_versions", lambda lib, refresh=True: list(source))
    monkeypatch.setattr(build, "_yanked", lambda lib: [])
    monkeypatch.setattr(build, "_upload_dates", lambda lib, versions: {})
    monkeypatch.setattr(build, "find_wheel", find)
    monkeypatch.setattr(build, "extract_cache", lambda lib, version: tmp_path / ("hit" if version in cached else "miss"))
    (tmp_path / "hit").write_text("{}")
    monkeypatch.setattr(build, "cached_extract", extract)
    monkeypatch.setattr("kb.apidrift.releases.FIRST_MINOR", {"lib": (1, 0)})
    out = build.library_releases("lib", tmp_path, online=False)
    assert [r["version"] for r in out] == ["1.0.0", "1.0.1", "1.1.0"]  # 1.2.0: no file, skipped
    assert not out[0].get("probed") and out[0]["exports"]["lib"] == ["a"]
    assert "1.0.1" not in fetched and "1.1.0" not in fetched and {"1.0.0", "1.2.0"} <= set(fetched)
    h = History(merge({"lib": out}))
    assert h.export_versions("lib", "lib", "b") == ["1.0.1", "1.1.0"]


def test_a_file_pip_cannot_fetch_is_not_chosen():
    """pip's --platform expands a macOS 11+ platform only to X_0 tags: torch 1.8.0's macosx_11_1 wheel is never
    fetched, so the next smallest file is read."""
    files = [{"filename": "torch-1.8.0-cp38-none-macosx_11_1_arm64.whl", "size": 39},
             {"filename": "torch-1.8.0-cp39-cp39-manylinux2014_aarch64.whl", "size": 45},
             {"filename": "torch-1.8.0-cp36-none-macosx_10_9_x86_64.whl", "size": 200}]
    assert choose_file("torch", files)["filename"] == "torch-1.8.0-cp39-cp39-manylinux2014_aarch64.whl"
    files[0]["filename"] = "torch-1.9.0-cp38-none-macosx_11_0_arm64.whl"
    assert choose_file("torch", files)["filename"].endswith("macosx_11_0_arm64.whl")
