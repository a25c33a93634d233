"""The shipped API history (tables/api-history.json.gz) holds what issue #25 asks for: coverage from
2020 (torch from 1.0), the nine libraries, members, enum values, defaults, and changes dated to the release that made them.
Each fact below was checked against the wheels' source when the table was built (python -m kb.apidrift build)."""

from __future__ import annotations

import pytest

from kb.apidrift.history import load_history

LIBRARIES = {"transformers": "2.0", "peft": "0.1", "trl": "0.1", "accelerate": "0.0", "bitsandbytes": "0.31",
             "datasets": "1.0", "torch": "1.0", "huggingface_hub": "0.0", "deepspeed": "0.3"}


@pytest.fixture(scope="module")
def h():
    return load_history()


def test_every_library_is_covered_from_2020(h):
    """From its first minor released in or after January 2020 (torch from 1.0, December 2018; transformers
    (2.0.0, September 2019), peft, trl, accelerate, huggingface_hub and bitsandbytes from their first release on
    PyPI), that minor's first patch included: it is read in full, having no earlier minor to bisect against."""
    for lib, first in LIBRARIES.items():
        versions = h.versions(lib)
        assert versions, lib
        assert versions[0].startswith(first + "."), (lib, versions[0])
    assert h.versions("torch")[:2] == ["1.0.0", "1.0.1"] and "1.0.0" not in h.probed("torch")
    assert {"2.4.0", "3.0.0", "3.5.1", "4.0.0", "4.15.0"} <= set(h.versions("transformers"))
    assert h.export_versions("transformers", "transformers", "pipeline")[0] == "2.3.0"  # 2.2.2 had none


def test_changes_older_than_2022_are_dated(h):
    """Real reports from 2020-2021 code: torch._six (gone in torch 2.0.0; read from the old releases' wheels,
    which exist only for Python 3.5-3.9), torch.tensordot (in torch 1.0.0, the first covered release), and
    Trainer(prediction_loss_only=...) (removed in transformers 4.0.0, its message naming the replacement)."""
    six = h.module_versions("torch", "torch._six")
    assert six[0] == "1.0.0" and six[-1] == "1.13.1"
    assert h.versions("torch")[h.versions("torch").index("1.13.1") + 1] == "2.0.0"
    assert h.export_versions("torch", "torch", "tensordot")[0] == "1.0.0"
    assert h.export_versions("torch", "torch.cuda.amp", "autocast")[0] == "1.6.0"  # 1.5 had only GradScaler there
    assert "GradScaler" in h.exports("torch", "torch.cuda.amp", "1.5.1")
    accepted = [v for v in h.versions("transformers") if "prediction_loss_only" in (h.params("transformers", "transformers.Trainer", v) or [])]
    assert accepted[-1] == "3.5.1" and "4.0.0" in h.versions("transformers")
    stated = [r for r in h.renames("transformers") if r["old"] == "prediction_loss_only" and r["owner"] == "transformers.Trainer"]
    assert stated and stated[0]["first_without"] == "4.0.0" and "args.prediction_loss_only" in stated[0]["new"]


def test_patch_releases_are_covered_and_some_are_probed(h):
    versions = h.versions("transformers")
    assert {"4.36.0", "4.36.1", "4.36.2", "4.46.0", "4.46.1", "4.46.3"} <= set(versions)
    assert "4.36.0" in h.probed("transformers") and "4.36.2" not in h.probed("transformers")
    assert h.release("transformers", "4.36.1") == "4.36.1"


def test_a_removed_member_has_its_exact_release_and_its_replacement(h):
    present, having = h.member_versions("transformers", "transformers.DynamicCache", "get_max_length")
    changes = h.changes("transformers", present, having)
    removed = [c for c in changes if c["change"] == "removed"]
    assert len(removed) == 1 and removed[0]["first_without"].endswith(".0")  # a minor's first release, not its last patch
    _, shape = h.member_versions("transformers", "transformers.DynamicCache", "get_max_cache_shape")
    assert removed[0]["first_without"] in shape


def test_an_enum_value_and_when_it_came(h):
    enums = h.find_classes("OptimizerNames")
    assert ("transformers", "transformers.training_args.OptimizerNames") in enums
    present, having = h.value_versions("transformers", "transformers.training_args.OptimizerNames", "paged_adamw_32bit")
    assert having and having[0] != present[0]  # added after 4.16
    assert "4.16.2" not in having and h.versions("transformers")[-1] in having


def test_torch_load_weights_only_default_changed_in_2_6_0(h):
    history = dict(h.default_history("torch", "torch.load", "weights_only"))
    assert "2.5.1" in history.get("None -> False", [])
    changed = [text for text, versions in history.items() if "2.6.0" in versions]
    assert changed and changed[0] != "None -> False"
    stated = [r for r in h.renames("torch") if r["kind"] == "default" and r["old"] == "weights_only"]
    said = [r for r in stated if "from `False` to `True`" in r["message"]]
    assert said and said[0]["owner"] == "torch.load" and said[0]["since"] == "2.6.0"
    assert any("will be fli" in r["message"] and r["since"] < "2.6" for r in stated)  # the earlier warning


def test_new_libraries_have_names_and_signatures(h):
    assert "snapshot_download" in h.exports("huggingface_hub", "huggingface_hub", "0.4.0")
    assert "cached_download" not in (h.exports("huggingface_hub", "huggingface_hub", h.versions("huggingface_hub")[-1]) or set())
    assert "model" in h.params("deepspeed", "deepspeed.initialize", h.versions("deepspeed")[-1])
    assert "compile" in h.exports("torch", "torch", "2.0.0") and "compile" not in h.exports("torch", "torch", "1.13.1")


def test_yanked_releases_are_covered_and_marked(h):
    """transformers 4.46.0 was yanked; it removed transformers.deepspeed, and a user may have installed it."""
    assert "4.46.0" in h.yanked("transformers") and "4.46.1" not in h.yanked("transformers")
    assert h.first_regular("transformers", "4.46.0") == "4.46.1"
    versions = h.module_versions("transformers", "transformers.deepspeed")
    assert versions[-1] == "4.45.2" and h.versions("transformers").index("4.46.0") == h.versions("transformers").index("4.45.2") + 1
    assert "0.26.4" in h.yanked("huggingface_hub") and not h.yanked("peft")


def test_a_deprecation_is_dated_to_the_patch_whose_source_first_states_it(h):
    """Read in the wheels: DynamicCache's deprecate_kwarg("num_hidden_layers") is in 4.45.2, not 4.45.1;
    ModelHubMixin's `languages` warning is in huggingface_hub 0.23.4, not 0.23.3; the `evaluation_strategy`
    warning in 4.41.0 (a minor's first release), not 4.40.2."""
    def stated(lib: str, owner: str, old: str) -> dict:
        found = [r for r in h.renames(lib) if r["owner"] == owner and r["old"] == old and r.get("source") != "lineage"]
        assert found, (lib, owner, old)
        return found[0]

    cache = stated("transformers", "transformers.DynamicCache.from_legacy_cache", "num_hidden_layers")
    assert (cache["since_last_without"], cache["since"]) == ("4.45.1", "4.45.2")
    hub = stated("huggingface_hub", "huggingface_hub.ModelHubMixin.__init_subclass__", "languages")
    assert (hub["since_last_without"], hub["since"]) == ("0.23.3", "0.23.4")
    args = stated("transformers", "transformers.TrainingArguments", "evaluation_strategy")
    assert (args["since_last_without"], args["since"]) == ("4.40.2", "4.41.0")
    first = h.versions("peft")[0]
    assert all(r["since_last_without"] is None for r in h.renames("peft") if r["since"] == first and r.get("source") != "lineage")


def test_the_callables_of_held_out_drift_reports_are_tracked(h):
    """Issue #25: held-out reports named these callables and the history had no parameters for them
    (tables/api-history-targets.toml lists them now). Each fact was read from the wheels' source."""
    present, having = h.param_versions("deepspeed", "deepspeed.runtime.zero.parameter_offload.DeepSpeedZeRoOffload.get_param_coordinator", "training")
    assert having[0] == "0.6.6" and having[-1] == "0.15.3" and present[-1] == h.versions("deepspeed")[-1]
    assert "config_dict_or_path" in h.params("deepspeed", "deepspeed.runtime.zero.partition_parameters.Init", h.versions("deepspeed")[-1])
    old = h.params("transformers", "transformers.deepspeed.deepspeed_init", "4.45.2")
    assert old and "inference" in old and h.params("transformers", "transformers.deepspeed.deepspeed_init", "4.46.1") is None
    assert "inference" in h.params("transformers", "transformers.integrations.deepspeed.deepspeed_init", h.versions("transformers")[-1])
    for method in ("dataset_info", "space_info", "model_info"):
        _, having = h.param_versions("huggingface_hub", f"huggingface_hub.HfApi.{method}", "expand")
        assert having[0] == "0.24.0", method
    _, having = h.param_versions("accelerate", "accelerate.commands.config.config_args.ClusterConfig", "dynamo_config")
    assert having[0] == "0.17.0"
    assert "ec2_instance_type" in h.params("accelerate", "accelerate.commands.config.config_args.SageMakerConfig", "0.2.0")
    assert "debug" not in h.params("accelerate", "accelerate.commands.config.config_args.BaseConfig", "0.21.0")


def test_the_extraction_cache_is_keyed_by_the_library_s_targets(monkeypatch) -> None:
    """An extraction made for another list of tracked callables is never reused (an offline rebuild from it would
    drop the callables added since)."""
    from kb.apidrift import extract

    before = extract.extract_cache("peft", "0.14.0")
    spec = dict(extract.targets())
    spec["peft"] = {**spec.get("peft", {}), "params": [*spec.get("peft", {}).get("params", []), "peft.NewlyTracked"]}
    monkeypatch.setattr(extract, "targets", lambda: spec)
    after = extract.extract_cache("peft", "0.14.0")
    assert before != after and before.parent == after.parent
    assert extract.extract_cache("trl", "0.7.0").name.startswith("trl-0.7.0-")
