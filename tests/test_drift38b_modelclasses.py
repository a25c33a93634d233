"""kb/apidrift/modelclasses.py: members of a few transformers model families' classes in the history."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kb.apidrift import modelclasses
from kb.apidrift.history import unpack
from kb.apidrift.ranges import decode
from kb.knowledge.tables import api_history_path

WHEELS = Path.home() / ".cache" / "kb" / "apidrift" / "wheels"
MODULE = "transformers.models.llama.modeling_llama"


def test_resolve_follows_module_tracked_and_torch_bases_and_drops_unknown_ones() -> None:
    classes = {
        "LlamaAttention": {"own": ["forward", "rotary_emb"], "bases": ["nn.Module"]},
        "LlamaPreTrainedModel": {"own": ["_init_weights"], "bases": ["PreTrainedModel"]},
        "LlamaModel": {"own": ["_prepare_decoder_attention_mask", "layers"], "bases": ["LlamaPreTrainedModel"]},
        "LlamaDecoderLayer": {"own": ["self_attn"], "bases": ["GradientCheckpointingLayer"]},  # base not known
        "LlamaForCausalLM": {"own": ["lm_head"], "bases": ["LlamaPreTrainedModel", "GenerationMixin"]},
    }
    tracked = {"transformers.PreTrainedModel": {"members": ["from_pretrained", "generate"], "external": ["torch.nn.Module"]}}
    out = modelclasses.resolve("transformers", MODULE, classes, tracked, exported={"LlamaModel", "LlamaForCausalLM"})
    assert out[f"{MODULE}.LlamaAttention"] == {"members": ["forward", "rotary_emb"], "external": ["torch.nn.Module"]}
    assert out["transformers.LlamaModel"]["members"] == [
        "_init_weights", "_prepare_decoder_attention_mask", "from_pretrained", "generate", "layers"]
    assert out["transformers.LlamaModel"]["external"] == ["torch.nn.Module"]
    assert f"{MODULE}.LlamaDecoderLayer" not in out  # a base neither in the module nor tracked: members not all known
    assert "transformers.LlamaForCausalLM" not in out  # GenerationMixin is not tracked in this record


def test_add_members_keeps_tracked_classes_and_fills_patches_from_their_minor() -> None:
    scans = {"4.34.1": {MODULE: {"LlamaMLP": {"own": ["act_fn"], "bases": ["nn.Module"]}}}}
    records = [
        {"version": "4.34.0", "exports": {MODULE: [], "transformers": []}, "members": {}},
        {"version": "4.34.1", "exports": {MODULE: [], "transformers": []},
         "members": {f"{MODULE}.LlamaMLP": {"members": ["kept"], "external": []}}},
    ]
    original = modelclasses.cached_scan
    modelclasses.cached_scan = lambda lib, version, wheel, cache=None: scans.get(version)
    try:
        added = modelclasses.add_members("transformers", records, lambda v: None)
    finally:
        modelclasses.cached_scan = original
    assert records[0]["members"][f"{MODULE}.LlamaMLP"]["members"] == ["act_fn"]
    assert records[1]["members"][f"{MODULE}.LlamaMLP"]["members"] == ["kept"]  # an extraction's record wins
    assert added == 1
    assert modelclasses.add_members("peft", records, lambda v: None) == 0


@pytest.mark.skipif(not (WHEELS / "transformers-4.35.0-py3-none-any.whl").exists(), reason="wheel not cached")
def test_scan_of_real_wheels_sees_prepare_decoder_attention_mask_go_in_4_35_0() -> None:
    before = modelclasses.scan("transformers", WHEELS / "transformers-4.34.1-py3-none-any.whl")
    after = modelclasses.scan("transformers", WHEELS / "transformers-4.35.0-py3-none-any.whl")
    assert "_prepare_decoder_attention_mask" in before[MODULE]["LlamaModel"]["own"]
    assert "_prepare_decoder_attention_mask" not in after[MODULE]["LlamaModel"]["own"]


def test_shipped_history_tracks_llama_model_members() -> None:
    with gzip.open(api_history_path(), "rt", encoding="utf-8") as f:
        entry = unpack(json.load(f)["libraries"]["transformers"])
    versions = entry["versions"]
    record = entry["members"]["transformers.LlamaModel"]
    having = sorted(i for r, names in record["names"].items() if "_prepare_decoder_attention_mask" in names.split()
                    for i in decode(r))
    assert versions[having[-1]] == "4.34.1"
    assert versions.index("4.35.0") in decode(record["present"])  # tracked there, without the member
