"""kb plan: shapes, the arithmetic against the measured H100 grid, the command, the kb env pre-flight hook.

CPU only, no torch: the grid's measurements are read from benchmarks/results/plan-grid-h100.jsonl.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kb.cli.commands import run_command
from kb.env.plan_risk import check_plan
from kb.plan.estimate import GIB, constants, estimate, lora_params_per_layer
from kb.plan.shapes import ShapeError, from_config, known_models, load_shape
from kb.plan.spec import RunSpec, SpecError, parse_device_map, spec_from_settings

ROOT = Path(__file__).resolve().parent.parent
GRID = [json.loads(line) for line in (ROOT / "benchmarks" / "results" / "plan-grid-h100.jsonl").read_text().splitlines()]
KELRON = RunSpec(quant="nf4", compute_dtype="fp16", lora_r=16, batch=1, seq=1024, grad_ckpt="nonreentrant")
IO_ON_0 = {"model.embed_tokens": 0, "model.rotary_emb": 0, "model.norm": 0, "lm_head": 0, "model.layers": 1}


def spec_of(row: dict) -> RunSpec:
    return RunSpec(quant=row["quant"], double_quant=row["double_quant"], lora_r=row["lora_r"], lora_dropout=row["lora_dropout"],
                   target_modules=row["targets"], batch=row["batch"], seq=row["seq"], grad_ckpt=row["grad_ckpt"],
                   optim=row["optim"], kbit_prep=row["kbit_prep"])


def test_grid_is_large_enough_and_split_by_its_rule():
    assert len(GRID) >= 30
    assert len({load_shape(r["model"]).model_type for r in GRID}) >= 4
    assert all(r["held_out"] == (r["id"] % 3 == 0) for r in GRID)
    assert {r["optim"] for r in GRID} >= {"adamw_torch", "adafactor", "sgd", "paged_adamw_8bit"}


def test_shapes_count_the_parameters_the_libraries_count():
    """Full fine-tuning trains every parameter, LoRA its adapters: torch counted them in the grid runs."""
    for row in GRID:
        shape = load_shape(row["model"])
        expected = shape.total_params() if row["lora_r"] == 0 else shape.layers * lora_params_per_layer(shape, spec_of(row))
        assert expected == row["trainable_params"], row["id"]
    assert load_shape("Qwen/Qwen2.5-14B-Instruct").embedding_params() == 778_567_680  # KB0005's table


def test_weights_after_loading_match_the_measured_allocation():
    """The first load of each model: the weights (+ the 64 MiB cuBLAS workspace when a configuration ran before it
    in the same process)."""
    seen = set()
    for row in sorted(GRID, key=lambda r: r["alloc_loaded_gib"]):
        key = (row["model"], row["quant"], row["double_quant"])
        if key in seen:
            continue
        seen.add(key)
        plan = estimate(load_shape(row["model"]), spec_of(row))[0]
        predicted, measured = plan.parts["weights"] / GIB, row["alloc_loaded_gib"]
        assert -0.02 * measured <= measured - predicted <= 0.02 * measured + 0.0625, row["id"]


@pytest.mark.parametrize("part", ["fitted", "held out"])
def test_error_on_the_measured_grid_meets_the_aim(part):
    """Mean absolute error <= 10% of the measured peak allocated, no under-prediction worse than 10%."""
    rows = [r for r in GRID if r["held_out"] == (part == "held out")]
    errs = []
    for row in rows:
        plan = estimate(load_shape(row["model"]), spec_of(row))[0]
        errs.append((plan.peak_allocated / GIB - row["peak_alloc_gib"]) / row["peak_alloc_gib"])
    assert sum(abs(e) for e in errs) / len(errs) <= 0.10
    assert min(errs) >= -0.10, [r["id"] for r, e in zip(rows, errs) if e < -0.10]


def test_constants_file_marks_what_was_fitted():
    c = constants()
    assert c["logits_bytes_per_element"] == 12.0 and 0.8 <= c["activation_scale"] <= 1.2


def test_kelron_single_gpu_does_not_fit_and_the_fix_does():
    shape = load_shape("qwen2.5-14b")
    one = estimate(shape, KELRON.with_(gpu_gib=(14.74,)))
    assert one[0].fits is False
    two = estimate(shape, KELRON.with_(gpu_gib=(14.74, 14.74), device_map=IO_ON_0))
    assert [p.fits for p in two] == [True, True]
    # recorded by KB0005's fixed program: 9.09 GiB on GPU 0 (embedding, head, their fp32 copies, logits)
    assert two[0].peak_allocated / GIB == pytest.approx(9.09, rel=0.05)


def test_plan_json_names_parts_fit_advice_and_case(capsys):
    code = run_command(["plan", "--model", "qwen2.5-14b", "--quant", "nf4", "--compute-dtype", "fp16", "--grad-ckpt",
                        "--gpu-gib", "14.74", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1 and doc["schema"] == "kb-plan/1" and doc["fits"] is False
    gpu = doc["gpus"][0]
    assert set(gpu["parts"]) >= {"weights", "kbit_prep_upcast", "adapter_parameters", "gradients", "optimizer_states",
                                 "activations", "logits_and_loss", "allocator_slack"}
    assert gpu["parts"]["kbit_prep_upcast"] == pytest.approx(2.90, abs=0.01)  # embed_tokens + lm_head: +1.45 GiB each
    assert doc["case"]["slug"] == "single-gpu-14b-oom" and doc["case"]["id"] == "KB0005"
    assert any(a["fits"] for a in doc["to_fit"])


def test_plan_two_gpus_with_a_device_map(capsys):
    code = run_command(["plan", "--model", "qwen2.5-14b", "--quant", "nf4", "--grad-ckpt", "--gpu-gib", "14.74",
                        "--gpu-gib", "14.74", "--device-map", json.dumps(IO_ON_0)])
    out = capsys.readouterr().out
    assert code == 0
    assert "GPU 0 (14.74 GiB; holds model.embed_tokens" in out and "48 decoder layers): fits" in out


def test_device_map_warnings_name_the_device_cases():
    from kb.plan.report import plan_document

    no_rotary = {"model.embed_tokens": 0, "model.norm": 0, "lm_head": 1, "model.layers": 1}
    doc = plan_document(load_shape("qwen2.5-14b"), KELRON.with_(gpu_gib=(14.74, 14.74), device_map=no_rotary))
    assert any("KB0004" in n for n in doc["notes"]) and any("KB0003" in n for n in doc["notes"])


def test_config_json_and_usage_errors(tmp_path, capsys):
    cfg = dict(known_models()["mistral-7b"])
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert run_command(["plan", "--config", str(tmp_path), "--batch", "2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["gpus"][0]["fits"] is None  # no --gpu-gib: no verdict
    (tmp_path / "config.json").write_text(json.dumps({**cfg, "model_type": "bert"}))
    assert run_command(["plan", "--config", str(tmp_path)]) == 2
    assert "model_type 'bert'" in capsys.readouterr().err
    assert run_command(["plan", "--model", "phi-3-mini", "--target-modules", "q_proj,v_proj"]) == 2
    assert "KB0029" in capsys.readouterr().err
    assert run_command(["plan", "--model", "qwen2.5-7b", "--lora-r", "0", "--quant", "nf4"]) == 2
    assert run_command(["plan", "--batch", "2"]) == 2


def test_from_file_then_options_override(tmp_path, capsys):
    f = tmp_path / "sft.json"
    f.write_text(json.dumps({"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2, "max_seq_length": 512,
                             "optim": "paged_adamw_8bit", "gradient_checkpointing": True, "bf16": True,
                             "model_name_or_path": "llama-3.2-1b"}))
    assert run_command(["plan", "--from", str(f), "--batch", "2", "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert (run["batch"], run["grad_accum"], run["seq"], run["optim"], run["grad_ckpt"]) == (2, 2, 512, "paged_adamw_8bit", "nonreentrant")
    spec = spec_from_settings({"training_args": {"fp16": False, "bf16": False, "load_in_4bit": True}})
    assert spec.autocast is False and spec.quant == "nf4" and spec.prep


def test_parse_device_map_and_shape_errors():
    assert parse_device_map("auto") is None
    assert parse_device_map('{"model.layers": "cuda:1", "lm_head": 0}') == {"model.layers": 1, "lm_head": 0}
    with pytest.raises(SpecError):
        parse_device_map('{"model.layers": "cpu"}')
    with pytest.raises(SpecError, match="places no GPU"):
        estimate(load_shape("qwen2.5-0.5b"), RunSpec(device_map={"model.layers": 0}))
    with pytest.raises(ShapeError):
        from_config({"model_type": "llama", "hidden_size": 8})


def test_env_config_flags_a_predicted_oom(tmp_path):
    f = tmp_path / "sft.json"
    f.write_text(json.dumps({"model_name_or_path": "qwen2.5-1.5b", "per_device_train_batch_size": 8, "max_seq_length": 2048,
                             "bf16": True, "lora_r": 16}))
    make = lambda name, slug, status, message: {"check": name, "slug": slug, "status": status, "message": message}  # noqa: E731
    t4 = [{"index": 0, "memory_total_mib": 15360, "visible": True}]
    [risk] = check_plan({"config": {"file": "sft.json", "path": str(f)}, "gpus": t4}, make)
    assert risk["status"] == "risk" and risk["slug"] == "batch-times-sequence-too-large" and "out of memory" in risk["message"]
    f.write_text(json.dumps({"model_name_or_path": "qwen2.5-1.5b", "per_device_train_batch_size": 1, "max_seq_length": 512,
                             "gradient_checkpointing": True}))
    assert check_plan({"config": {"path": str(f)}, "gpus": t4}, make)[0]["status"] == "ok"
    assert check_plan({"config": {"path": str(f)}, "gpus": None}, make)[0]["status"] == "skipped"
    assert check_plan({"config": None}, make) == []


def test_kb_plan_does_not_import_torch():
    code = ("import sys; from kb.cli.commands import run_command; "
            "run_command(['plan', '--model', 'qwen2.5-14b', '--quant', 'nf4', '--gpu-gib', '14.74']); "
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("content", ["[" * 100_000, "x: " + "9" * 100_000])
def test_from_file_is_read_with_env_configs_limits(tmp_path, capsys, content):
    """--from goes through kb env --config's bounded reader: too deep or unreadable is a usage error, not a traceback."""
    f = tmp_path / "bad.yaml"
    f.write_text(content)
    assert run_command(["plan", "--from", str(f), "--model", "qwen2.5-0.5b"]) == 2
    assert "kb plan: --from" in capsys.readouterr().err


def test_from_dev_zero_is_refused_at_the_size_limit(capsys):
    assert run_command(["plan", "--from", "/dev/zero", "--model", "qwen2.5-0.5b"]) == 2
    assert "larger than" in capsys.readouterr().err
