"""kb plan --strategy: per-rank plans as each strategy shards the model's state (kb/plan/strategy.py)."""

from __future__ import annotations

import json

import pytest

from kb.cli.commands import run_command
from kb.plan.estimate import GIB, estimate
from kb.plan.shapes import load_shape
from kb.plan.spec import RunSpec, SpecError
from kb.plan.strategy import strategy_doc

FULL = RunSpec(lora_r=0, batch=2, seq=1024)


def peak(model: str, spec: RunSpec) -> float:
    plans = estimate(load_shape(model), spec)
    return max(p.peak_allocated for p in plans) / GIB


@pytest.mark.parametrize("model", ["qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "llama-3.2-1b"])
def test_fsdp_full_finetuning_needs_less_per_gpu_than_ddp_on_two_gpus(model: str) -> None:
    ddp = peak(model, FULL.with_(strategy="ddp", gpus=2))
    fsdp = peak(model, FULL.with_(strategy="fsdp", gpus=2))
    assert fsdp < ddp


def test_ddp_is_the_single_gpu_plan_plus_a_gradient_copy_in_its_buckets() -> None:
    shape = load_shape("qwen2.5-0.5b")
    one = estimate(shape, FULL)[0]
    rank = estimate(shape, FULL.with_(strategy="ddp", gpus=2))
    assert len(rank) == 2
    buckets = rank[0].parts["communication_buckets"]
    assert buckets == one.parts["gradients"] > 0
    assert rank[0].peak_allocated == pytest.approx(one.peak_allocated + buckets)


def test_sharding_shrinks_with_more_ranks_and_zero3_below_zero2() -> None:
    spec = RunSpec(lora_r=0, batch=1, seq=512)
    two, four = peak("qwen2.5-3b", spec.with_(strategy="zero3", gpus=2)), peak("qwen2.5-3b", spec.with_(strategy="zero3", gpus=4))
    assert four < two
    assert peak("qwen2.5-3b", spec.with_(strategy="zero3", gpus=4)) < peak("qwen2.5-3b", spec.with_(strategy="zero2", gpus=4))
    # shard_grad_op keeps every layer gathered between forward and backward: more than full_shard
    assert peak("qwen2.5-1.5b", spec.with_(strategy="fsdp", gpus=2, fsdp_sharding="shard_grad_op")) > \
        peak("qwen2.5-1.5b", spec.with_(strategy="fsdp", gpus=2))


def test_offload_moves_state_to_the_host() -> None:
    shape = load_shape("qwen2.5-1.5b")
    spec = FULL.with_(strategy="zero3", gpus=2, gpu_gib=(15.0,))
    doc = strategy_doc(shape, spec)
    assert doc is not None and doc["gpus"] == 2 and doc["gathered_unit_gib"] > 0
    by = {o["offload"]: o for o in doc["offload_options"]}
    assert set(by) == {"none", "optimizer", "params"}
    assert by["params"]["peak_allocated_gib"] < by["optimizer"]["peak_allocated_gib"] < by["none"]["peak_allocated_gib"]
    assert by["none"]["cpu_gib_per_rank"] == 0 < by["optimizer"]["cpu_gib_per_rank"] < by["params"]["cpu_gib_per_rank"]


def test_no_new_option_plans_as_before() -> None:
    shape = load_shape("qwen2.5-7b")
    spec = RunSpec(quant="nf4", batch=2, seq=2048, gpu_gib=(15.0, 15.0))
    a = estimate(shape, spec)
    b = estimate(shape, spec.with_(strategy="device-map"))
    assert [p.peak_allocated for p in a] == [p.peak_allocated for p in b]
    assert len(a) == 2 and a[0].layers + a[1].layers == shape.layers


@pytest.mark.parametrize("spec, words", [
    (RunSpec(strategy="single", gpus=2), "single plans one GPU"),
    (RunSpec(gpus=2), "--strategy"),
    (RunSpec(strategy="ddp", offload="optimizer", gpus=2), "--offload needs"),
    (RunSpec(strategy="zero2", offload="params", gpus=2), "ZeRO-2 offloads the optimizer only"),
    (RunSpec(strategy="ddp", gpus=3, gpu_gib=(15.0, 15.0)), "one per GPU"),
    (RunSpec(strategy="fsdp", gpus=2, device_map={"": 0}), "--device-map"),
])
def test_refusals_name_the_problem(spec: RunSpec, words: str) -> None:
    with pytest.raises(SpecError, match=words.replace("-", r"\-")):
        estimate(load_shape("qwen2.5-0.5b"), spec)


def test_cli_strategy_json_per_rank(capsys: pytest.CaptureFixture[str]) -> None:
    code = run_command(["plan", "--model", "qwen2.5-1.5b", "--lora-r", "0", "--strategy", "fsdp", "--gpus", "2",
                        "--gpu-gib", "80", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["fits"] is True
    assert [g["index"] for g in doc["gpus"]] == [0, 1]
    st = doc["strategy"]
    assert st["name"] == "fsdp" and st["per_rank"] and st["fsdp_sharding"] == "full_shard" and st["global_batch"] == 2
    assert doc["gpus"][0]["parts"]["weights"] < 1.54e9 * 4 / 2 / GIB + 0.01  # fp32 shards: half of 4 bytes a parameter


def test_cli_strategy_text_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code = run_command(["plan", "--model", "qwen2.5-1.5b", "--lora-r", "0", "--strategy", "ddp", "--gpus", "2", "--gpu-gib", "15"])
    out = capsys.readouterr().out
    assert code == 1 and "strategy: ddp on 2 GPUs" in out and "--strategy zero3" in out
    assert run_command(["plan", "--model", "qwen2.5-0.5b", "--gpus", "0", "--strategy", "ddp"]) == 2
    assert run_command(["plan", "--model", "qwen2.5-0.5b", "--gpus", "two", "--strategy", "ddp"]) == 2
    assert run_command(["plan", "--model", "qwen2.5-0.5b", "--strategy", "fsdp2"]) == 2
    err = capsys.readouterr().err
    assert "kb plan" in err and "Traceback" not in err


def test_zero3_steps_one_sub_group_at_a_time() -> None:
    """DeepSpeed ZeRO-3 converts one sub-group (sub_group_size = 1e9 partition elements, closed once reached) to
    fp32 for the step, not the whole partition: qwen2.5-3b on 2 ranks has 1.54e9 elements a rank, so the largest
    sub-group is the first one reaching 1e9 (embedding + 22 layers' matrices), and the step's temporaries are its
    fp32 gradient and AdamW's buffer, 8 bytes an element."""
    from kb.plan.strategy import zero3_largest_sub_group

    shape = load_shape("qwen2.5-3b")
    spec = FULL.with_(strategy="zero3", gpus=2, batch=1).resolved()
    group = zero3_largest_sub_group(shape, spec, 2)
    assert 1e9 <= group < 1e9 + max(m.d_in * m.d_out for m in shape.linears())
    small = load_shape("qwen2.5-0.5b")
    assert zero3_largest_sub_group(small, spec, 2) == pytest.approx(small.total_params() / 2, rel=0.01)


def test_zero3_keeps_the_last_layers_gathered_within_the_reuse_distance() -> None:
    """stage3_max_reuse_distance (1e9 parameters): a layer is not released after its forward when it comes back
    within that many parameters; the later a layer, the sooner it comes back. A bigger model keeps fewer."""
    from kb.plan.strategy import zero3_layers_kept

    spec = FULL.with_(strategy="zero3", gpus=2).resolved()
    kept = {m: zero3_layers_kept(load_shape(m), spec) for m in ("qwen2.5-0.5b", "qwen2.5-1.5b", "llama-3.1-8b")}
    assert kept["qwen2.5-0.5b"] == load_shape("qwen2.5-0.5b").layers  # 0.5B parameters: all within the distance
    assert 0 < kept["qwen2.5-1.5b"] < load_shape("qwen2.5-1.5b").layers
    assert kept["llama-3.1-8b"] < kept["qwen2.5-1.5b"]
