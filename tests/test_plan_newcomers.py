"""kb plan for newcomers (issue #23 item 9): `--gpu-gib 15 15`, model ids as people write them, advice computed
with the settings the user would run, the libraries' defaults (checkpointing under kbit prep, no bf16 on a T4),
and plan_for_oom, the planner's estimate for kb diagnose."""

from __future__ import annotations

import json

import pytest

from kb.cli.commands import run_command
from kb.knowledge.tables import read_table
from kb.plan.names import near, resolve
from kb.plan.quick import plan_for_oom
from kb.plan.shapes import ShapeError, known_models, load_shape


def plan_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = run_command(["plan", *argv, "--format", "json"])
    captured = capsys.readouterr()
    assert captured.err == "", captured.err
    return code, json.loads(captured.out)


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line kb plan refuses ``argv`` with (exit code 2)."""
    code = run_command(["plan", *argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("kb plan: ") and err.count("\n") == 1, err
    return err


# --------------------------------------------------------------------------- --gpu-gib X Y


def test_gpu_gib_takes_several_values_and_repeated_flags_alike(capsys):
    code_a, listed = plan_json(capsys, "--model", "qwen2.5-7b", "--quant", "nf4", "--gpu-gib", "15", "15")
    code_b, repeated = plan_json(capsys, "--model", "qwen2.5-7b", "--quant", "nf4", "--gpu-gib", "15", "--gpu-gib", "15")
    assert code_a == code_b == 0
    assert listed == repeated
    assert [g["total_gib"] for g in listed["gpus"]] == [15.0, 15.0]
    code, mixed = plan_json(capsys, "--model", "qwen2.5-7b", "--gpu-gib", "24", "15", "--gpu-gib", "15")
    assert [g["total_gib"] for g in mixed["gpus"]] == [24.0, 15.0, 15.0]


# --------------------------------------------------------------------------- model ids


@pytest.mark.parametrize("spelling", ["Qwen/Qwen2.5-14B-Instruct", "Qwen2.5-14B-Instruct", "qwen2.5-14b", "Qwen/Qwen2.5-14B",
                                      "unsloth/Qwen2.5-14B-Instruct-bnb-4bit", "QWEN2.5-14B-INSTRUCT"])
def test_model_ids_as_people_write_them(capsys, spelling):
    assert resolve(spelling) == "qwen2.5-14b"
    code, doc = plan_json(capsys, "--model", spelling, "--quant", "nf4")
    assert code == 0 and doc["model"]["name"] == "qwen2.5-14b" and doc["model"]["params"] == 14_770_033_664
    read_as = [n for n in doc["notes"] if "read as qwen2.5-14b" in n]
    assert bool(read_as) == (spelling != "qwen2.5-14b")


def test_an_instruct_model_has_its_base_models_shapes():
    base, instruct = load_shape("Qwen/Qwen2.5-7B"), load_shape("Qwen/Qwen2.5-7B-Instruct")
    assert base == instruct and base.name == "qwen2.5-7b"
    for spelling, mid in [("meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"), ("Llama-3.1-8B", "llama-3.1-8b"),
                          ("google/gemma-2-9b-it", "gemma-2-9b"), ("meta-llama/Llama-2-7b-chat-hf", "llama-2-7b"),
                          ("mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b"), ("Qwen/Qwen3-8B-Base", "qwen3-8b"),
                          ("microsoft/Phi-3-mini-4k-instruct", "phi-3-mini")]:
        assert resolve(spelling) == mid, spelling
    # a different release with other shapes is not taken for another (Mistral v0.1 has a 32,000 vocabulary)
    assert resolve("mistralai/Mistral-7B-v0.1") is None


def test_every_table_id_and_hub_id_resolves_to_itself():
    for mid, cfg in known_models().items():
        assert resolve(mid) == mid
        assert resolve(cfg["hub_id"]) == mid, cfg["hub_id"]
        for alias in cfg.get("aliases", []):
            assert resolve(alias) == mid, alias


def test_an_unknown_id_lists_the_near_ones_and_suggests_config(capsys):
    err = refused(capsys, "--model", "Qwen/Qwen2.5-15B-Instruct", "--quant", "nf4")
    assert "unknown model 'Qwen/Qwen2.5-15B-Instruct'" in err
    assert "qwen2.5-14b" in err and "qwen2.5-1.5b" in err and "--config PATH" in err
    assert near("llama3-8b")[0] == "llama-3.1-8b"
    assert near("zzzzzz") == []
    with pytest.raises(ShapeError, match="--config PATH"):
        load_shape("no-such-model-at-all")


# --------------------------------------------------------------------------- defaults as the libraries do


def test_kbit_prep_turns_checkpointing_on_as_peft_does(capsys):
    _, default = plan_json(capsys, "--model", "qwen2.5-14b", "--quant", "nf4", "--gpu-gib", "24")
    _, explicit = plan_json(capsys, "--model", "qwen2.5-14b", "--quant", "nf4", "--gpu-gib", "24", "--grad-ckpt", "--reentrant")
    _, without = plan_json(capsys, "--model", "qwen2.5-14b", "--quant", "nf4", "--gpu-gib", "24", "--no-grad-ckpt")
    assert default["run"]["grad_ckpt"] == "reentrant" and default["run"]["kbit_prep"] is True
    assert default["gpus"][0]["peak_allocated_gib"] == explicit["gpus"][0]["peak_allocated_gib"]
    assert without["gpus"][0]["peak_allocated_gib"] > default["gpus"][0]["peak_allocated_gib"] + 10
    assert any("prepare_model_for_kbit_training turns it on" in n for n in default["notes"])
    # no kbit preparation, no quantization: the Trainer's default, off
    _, no_prep = plan_json(capsys, "--model", "qwen2.5-14b", "--quant", "nf4", "--no-kbit-prep")
    _, bf16 = plan_json(capsys, "--model", "qwen2.5-7b")
    assert no_prep["run"]["grad_ckpt"] == "off" and bf16["run"]["grad_ckpt"] == "off"


def test_from_file_gradient_checkpointing_false_is_not_an_off_switch(tmp_path, capsys):
    """Every TrainingArguments dump says gradient_checkpointing: false; the Trainer then leaves on what
    prepare_model_for_kbit_training turned on."""
    f = tmp_path / "args.json"
    f.write_text(json.dumps({"model_name_or_path": "Qwen/Qwen2.5-7B-Instruct", "load_in_4bit": True,
                             "gradient_checkpointing": False, "per_device_train_batch_size": 2, "fp16": True}))
    _, doc = plan_json(capsys, "--from", str(f))
    assert doc["run"]["grad_ckpt"] == "reentrant" and doc["run"]["batch"] == 2 and doc["model"]["name"] == "qwen2.5-7b"


@pytest.mark.parametrize("size", ["14.74", "15"])  # torch's figure for a T4, and nvidia-smi's
def test_bf16_on_a_t4_is_refused_with_the_reason(capsys, size):
    err = refused(capsys, "--model", "qwen2.5-7b", "--compute-dtype", "bf16", "--gpu-gib", size)
    assert "T4" in err and "compute capability 8.0" in err and "KB0013" in err and "--compute-dtype fp16" in err
    # left to the default, a T4 is planned in fp16 and the plan says why
    code, doc = plan_json(capsys, "--model", "qwen2.5-7b", "--quant", "nf4", "--gpu-gib", size)
    assert code == 0 and doc["run"]["compute_dtype"] == "fp16"
    assert any("without native bf16" in n for n in doc["notes"])


def test_bf16_is_refused_on_any_card_before_compute_capability_8(capsys, tmp_path):
    cards = read_table("gpus")["card"]
    assert all("max_compute_capability" in c for c in cards)
    old = [c for c in cards if c["max_compute_capability"] < 8.0]
    assert {c.get("id") for c in old} >= {"t4"} and len(old) >= 2
    for card in cards:
        size = str((card["min_gib"] + card["max_gib"]) / 2)
        code = run_command(["plan", "--model", "qwen2.5-0.5b", "--compute-dtype", "bf16", "--gpu-gib", size])
        err = capsys.readouterr().err
        assert (code == 2) == (card["max_compute_capability"] < 8.0), (card["name"], err)
    # bf16 from a --from file is the same request
    f = tmp_path / "sft.yaml"
    f.write_text("bf16: true\nper_device_train_batch_size: 1\n")
    assert "bf16 on GPU 1" in refused(capsys, "--model", "qwen2.5-0.5b", "--from", str(f), "--gpu-gib", "24", "14.74")


# --------------------------------------------------------------------------- advice with the user's settings


def test_advice_is_computed_with_the_settings_the_user_would_run(capsys):
    """Each change's predicted peak is the plan of the run with that change made, everything else as the user
    runs it (here: checkpointing on, from prepare_model_for_kbit_training)."""
    base = ["--model", "Qwen/Qwen2.5-14B-Instruct", "--quant", "nf4", "--gpu-gib", "15"]
    code, doc = plan_json(capsys, *base)
    assert code == 1 and doc["to_fit"]
    changes = [a["change"] for a in doc["to_fit"]]
    assert not any(c.startswith("gradient_checkpointing=True") for c in changes), changes  # already on
    direct = {"max_length=512": [*base, "--seq", "512"],
              "skip prepare_model_for_kbit_training": [*base, "--no-kbit-prep", "--grad-ckpt", "--reentrant"]}
    checked = 0
    for row in doc["to_fit"]:
        for prefix, argv in direct.items():
            if row["change"].startswith(prefix):
                _, alone = plan_json(capsys, *argv)
                worst = max(alone["gpus"], key=lambda g: g["peak_reserved_gib"])
                assert row["peak_allocated_gib"] == pytest.approx(worst["peak_allocated_gib"], abs=0.01), row
                checked += 1
    assert checked == 2
    skip = next(c for c in changes if c.startswith("skip prepare"))
    assert "gradient_checkpointing_enable()" in skip
    # a run without checkpointing is not told its replacement turns it on
    _, off = plan_json(capsys, *base, "--no-grad-ckpt")
    skip_off = [a["change"] for a in off["to_fit"] if a["change"].startswith("skip prepare")]
    assert skip_off and all("gradient_checkpointing_enable" not in c for c in skip_off)


# --------------------------------------------------------------------------- plan_for_oom


def test_plan_for_oom_returns_the_planners_estimate(capsys):
    got = plan_for_oom("Qwen/Qwen2.5-14B-Instruct", batch=1, seq=1024, quant="4bit", gpu_gib=14.74, lora_r=16)
    assert got is not None
    json.dumps(got, allow_nan=False)
    assert set(got) >= {"model", "settings", "peak_gib", "gpu_gib", "fits", "summary", "advice"}
    assert got["model"] == "qwen2.5-14b" and got["fits"] is False and got["gpu_gib"] == 14.74
    assert got["settings"]["quant"] == "nf4" and got["settings"]["grad_ckpt"] == "reentrant"
    assert got["settings"]["compute_dtype"] == "fp16"
    assert "\n" not in got["summary"] and "does not fit" in got["summary"] and "qwen2.5-14b" in got["summary"]
    assert got["advice"] and all(isinstance(a, str) for a in got["advice"])
    assert got["case"] == "KB0005 single-gpu-14b-oom"
    # the same figures as `kb plan` with the same settings
    _, doc = plan_json(capsys, "--model", "qwen2.5-14b", "--quant", "nf4", "--batch", "1", "--seq", "1024",
                       "--lora-r", "16", "--gpu-gib", "14.74")
    assert got["peak_gib"] == round(doc["gpus"][0]["peak_allocated_gib"], 2)
    assert len(got["advice"]) == len(doc["to_fit"])


def test_plan_for_oom_defaults_and_spellings():
    small = plan_for_oom("qwen2.5-0.5b", batch=None, seq=None, quant=None, gpu_gib=24.0, lora_r=None)
    assert small is not None and small["fits"] is True and small["advice"] == []
    assert small["settings"] == {"batch": 1, "seq": 1024, "quant": "none", "lora_r": 16, "grad_ckpt": "off",
                                 "kbit_prep": False, "compute_dtype": "bf16"}
    unknown_gpu = plan_for_oom("llama-3.1-8b", batch=2, seq=2048, quant="load_in_8bit", gpu_gib=None, lora_r=8)
    assert unknown_gpu is not None and unknown_gpu["fits"] is None and unknown_gpu["settings"]["quant"] == "int8"
    assert "GPU size unknown" in unknown_gpu["summary"]
    bigger = plan_for_oom("llama-3.1-8b", batch=4, seq=2048, quant="load_in_8bit", gpu_gib=None, lora_r=8)
    assert bigger is not None and bigger["peak_gib"] > unknown_gpu["peak_gib"]


@pytest.mark.parametrize("kwargs", [
    {"model": "not-a-model"}, {"model": "Qwen/Qwen2.5-15B"}, {"model": ""},
    {"model": "qwen2.5-7b", "batch": 0}, {"model": "qwen2.5-7b", "seq": -1}, {"model": "qwen2.5-7b", "gpu_gib": float("nan")},
    {"model": "qwen2.5-7b", "quant": "gguf-q5"}, {"model": "qwen2.5-7b", "quant": "nf4", "lora_r": 0},
    {"model": "qwen2.5-7b", "gpu_gib": float("inf")}, {"model": "qwen2.5-7b", "batch": 10**400},
])
def test_plan_for_oom_says_none_when_it_cannot_plan(kwargs):
    args = {"batch": None, "seq": None, "quant": None, "gpu_gib": None, "lora_r": None, **kwargs}
    model = args.pop("model")
    assert plan_for_oom(model, **args) is None
