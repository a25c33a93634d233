"""review50b (turn 50): defects found reviewing the turn's merged rules and kb plan changes, each shown by an input
(benchmarks/results/review-turn50b.txt).

1. rt50b read transformers' bitsandbytes environment check as cuda-setup "in every form". Since transformers split the
   check (quantizer_bnb_4bit/8bit.validate_environment: `if not is_accelerate_available() or accelerate < 0.26: raise
   ImportError("Using `bitsandbytes` 4-bit quantization requires Accelerate: `pip install 'accelerate>=0.26.0'`")`,
   after its own "No GPU found" check), that form says only that accelerate is missing or too old: api-drift's
   needs-accelerate, as before rt50b. The combined form ("... requires Accelerate: `pip install accelerate` and the
   latest version of bitsandbytes") stays cuda-setup (tests/test_rt50b.py).
2. wrong50's hang title rule (ZeRO-3 + a save + a hang word) read "frozen" / "freezing" - fine-tuning's word for
   parameters kept from training - and a loss "stuck" at a value as a hang; sharding-config's rule excluded the same
   words, so "ZeRO-3 does not save frozen parameters" went sharding-config (right) -> hang (wrong).
3. rt50's adapter-config rule ("... is not a LoRA checkpoint") also read "is not a LoRA model", the wording of Stable
   Diffusion tools and Civitai bots for a LoRA file: out of scope, it must stay unclaimed.
4. kb plan's new device-map notes quote the user's keys on standard output, which kb does not redact as a whole: a
   token pasted as a key was printed; a key of a megabyte was printed whole.
"""

from __future__ import annotations

import json

import pytest

from kb.cli.commands import run_command
from runtime_support import top_answer

# 1. transformers' split accelerate check ------------------------------------------------------------------------------

LOAD_FRAMES = (
    "Traceback (most recent call last):\n"
    "  File \"/content/train.py\", line 12, in <module>\n"
    "    model = AutoModelForCausalLM.from_pretrained(name, quantization_config=bnb_config, device_map=\"auto\")\n"
    "  File \"/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py\", line 3657, in from_pretrained\n"
    "    hf_quantizer.validate_environment(\n"
    "  File \"/usr/local/lib/python3.10/dist-packages/transformers/quantizers/quantizer_bnb_4bit.py\", line 75, in "
    "validate_environment\n"
    "    raise ImportError(\n"
)


@pytest.mark.parametrize("text", [
    LOAD_FRAMES + "ImportError: Using `bitsandbytes` 4-bit quantization requires Accelerate: `pip install "
    "'accelerate>=0.26.0'`\n",
    "ImportError: Using `bitsandbytes` 8-bit quantization requires Accelerate: `pip install 'accelerate>=0.26.0'`\n",
    "ImportError: Using bitsandbytes 8-bit quantization requires Accelerate: pip install accelerate>=0.26.0\n",
])
def test_split_accelerate_check_is_api_drift(text: str) -> None:
    assert top_answer(text) == ("family", "api-drift")


def test_combined_check_stays_cuda_setup() -> None:
    text = (LOAD_FRAMES + "ImportError: Using `bitsandbytes` 4-bit quantization requires Accelerate: `pip install "
            "accelerate` and the latest version of bitsandbytes: `pip install -i https://pypi.org/simple/ bitsandbytes`\n")
    assert top_answer(text) == ("family", "cuda-setup")


# 2. ZeRO-3 save titles: frozen parameters and a stuck loss are no hang ------------------------------------------------

@pytest.mark.parametrize("title", [
    "[BUG] ZeRO-3 does not save frozen parameters",
    "save_pretrained under zero3 with frozen vision tower saves empty weights",
    "zero3 save_model fails when some layers are frozen",
    "zero3 save_model freezing the vision tower gives empty weights",
    "ZeRO-3 LoRA: loss stuck at 0 and saved adapter is empty",
])
def test_zero3_save_with_frozen_parameters_is_sharding_config(title: str) -> None:
    assert top_answer(title + "\n") == ("family", "sharding-config")


@pytest.mark.parametrize("title", [
    "ZeRO-3 model saving is stuck",
    "zero3 training freezes when saving checkpoint",
    "DeepSpeed zero3 save checkpoint froze at step 500",
    "Zero3 save is frozen at 100%",
])
def test_zero3_save_that_hangs_stays_hang(title: str) -> None:
    assert top_answer(title + "\n") == ("family", "hang")


# 3. Stable Diffusion's "is not a LoRA model" --------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "--> load a new LoRA model from models/civitai/pixel_art.safetensors\n"
    "Traceback (most recent call last):\n"
    "  File \"/home/user/video-edit/scripts/sampling/sampling_tv2v.py\", line 184, in <module>\n"
    "    raise ValueError(\n"
    "ValueError: The model you provided in [models/civitai/pixel_art.safetensors] is not a LoRA model. \n",
    "ValueError: Model 'dreamshaper_8' is not a LoRA model.\n",
])
def test_a_lora_file_of_image_models_stays_unclaimed(text: str) -> None:
    assert top_answer(text) is None


def test_a_folder_that_is_no_peft_adapter_stays_adapter_config() -> None:
    assert top_answer("ValueError: ./output/checkpoint-500 is not a PEFT model folder\n") == ("family", "adapter-config")


# 4. kb plan's device-map notes ----------------------------------------------------------------------------------------

TOKEN = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_device_map_notes_redact_and_cut_the_users_keys(capsys, fmt: str) -> None:
    mapping = {"": 0, TOKEN: 1, "model.layers.9" + "9" * 5000: 1, "x\x1b[31my": 0}
    code = run_command(["plan", "--model", "qwen2.5-7b", "--gpu-gib", "15", "15", "--device-map", json.dumps(mapping),
                        "--format", fmt])
    assert code in (0, 1)
    out = capsys.readouterr().out
    notes = json.loads(out)["notes"] if fmt == "json" else out.splitlines()
    (note,) = [n for n in notes if "naming no module of this model" in n]
    assert TOKEN not in out and TOKEN[:10] not in note, note
    assert "hf_***" in note
    assert "9" * 100 not in out and len(note) < 400, len(note)
    assert "\x1b" not in out and "x\\x1b[31my" in note


# 5. kb env --config from a pipe: the memory plan read the config a second time -----------------------------------------

def test_kb_env_plans_a_config_given_as_a_pipe(tmp_path) -> None:
    """plan50 let the bounded reader take a pipe (`kb env --config <(...)`); kb/env/plan_risk.py read the file again,
    found the pipe drained (not a regular file) and said "the config names no model". It now uses what kb env read."""
    import os
    import threading

    from kb.env.report import collect

    fifo = tmp_path / "cfg.json"
    os.mkfifo(fifo)
    body = json.dumps({"model_name_or_path": "Qwen/Qwen2.5-0.5B-Instruct", "per_device_train_batch_size": 1}).encode()

    def write() -> None:
        with open(fifo, "wb") as handle:
            handle.write(body)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    report = collect(environ={}, config_path=str(fifo))
    writer.join(5)
    [plan] = [c for c in report["checks"] if c["check"] == "memory-plan"]
    assert "names no model" not in plan["message"], plan
    assert "Qwen2.5-0.5B-Instruct" in plan["message"] or plan["status"] in ("ok", "risk"), plan
    assert set(report["config"]) == {"file", "format", "settings"}  # the mapping is not echoed
