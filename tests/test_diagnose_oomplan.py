"""kb diagnose on out-of-memory logs that name the model and the shapes: the answer carries the planner's
``plan`` (kb/diagnose/oomplan.py -> kb/plan/quick.py), with the breakdown and the smallest change that fits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.cli.commands import run_command

OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried} GiB. GPU {gpu} has a total capacity of "
       "{total} GiB of which 1.12 GiB is free. Process 4521 has 13.62 GiB memory in use. Of the allocated memory 12.93 GiB "
       "is allocated by PyTorch, and 562.30 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
       "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
       "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")

COLAB_T4 = """$ python train.py --model_name_or_path Qwen/Qwen2.5-7B-Instruct --per_device_train_batch_size 4 --max_seq_length 2048 --lora_r 16
Loading checkpoint shards: 100%|##########| 4/4 [00:41<00:00, 10.3s/it]
trainable params: 40,370,176 || all params: 7,655,986,688 || trainable%: 0.5273
***** Running training *****
  Num examples = 5,000
  Instantaneous batch size per device = 4
  Gradient Accumulation steps = 4
Traceback (most recent call last):
  File "/content/train.py", line 88, in <module>
    trainer.train()
  File "/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", line 2279, in _inner_training_loop
    tr_loss_step = self.training_step(model, inputs)
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py", line 3104, in cross_entropy
    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
""" + OOM.format(tried="4.64", gpu=0, total="14.74") + "\n"

TORCHRUN_2GPU = """$ torchrun --nproc_per_node 2 sft.py --model_name_or_path meta-llama/Llama-3.2-3B --per_device_train_batch_size 8 --max_seq_length 2048 --lora_r 0
W1126 10:02:11.114000 1234 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1
[rank1]: Traceback (most recent call last):
[rank1]:   File "/workspace/sft.py", line 61, in <module>
[rank1]:     trainer.train()
[rank1]:   File "/usr/local/lib/python3.11/site-packages/transformers/trainer.py", line 2325, in _inner_training_loop
[rank1]:     tr_loss_step = self.training_step(model, inputs, num_items_in_batch)
[rank1]: """ + OOM.format(tried="3.91", gpu=1, total="23.53") + "\n"

NO_MODEL = """Traceback (most recent call last):
  File "/content/train.py", line 88, in <module>
    trainer.train()
""" + OOM.format(tried="1.02", gpu=0, total="14.74") + "\n"


def diagnose(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> dict:
    log = tmp_path / "run.log"
    log.write_text(text)
    run_command(["diagnose", str(log), "--format", "json"])
    return json.loads(capsys.readouterr().out)


def oom_plans(doc: dict) -> list[dict]:
    return [m["plan"] for m in doc["matches"] if m.get("plan")]


def test_colab_t4_oom_carries_the_plan_with_breakdown_and_smallest_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plans = oom_plans(diagnose(tmp_path, COLAB_T4, capsys))
    assert plans, "an OOM that names the model and the shapes carries a plan"
    plan = plans[0]
    assert plan["model"] == "qwen2.5-7b" and plan["settings"]["batch"] == 4 and plan["settings"]["seq"] == 2048
    assert plan["gpu_gib"] == 14.74 and plan["fits"] is False and plan["settings"]["compute_dtype"] == "fp16"
    parts = plan["breakdown"]
    assert parts["weights"] > 13 and parts["activations"] > parts["weights"]  # bf16 7B weights; 4 x 2048 tokens of activations
    assert sum(parts.values()) == pytest.approx(plan["peak_gib"], abs=0.05)
    change = plan["smallest_change"]
    assert change["fits"] and change["peak_gib"] < 14.74
    # the proposal, planned again, fits the card
    assert run_command(["plan", "--model", "qwen2.5-7b", *change["flags"]]) == 0


def test_torchrun_log_plans_each_rank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = diagnose(tmp_path, TORCHRUN_2GPU, capsys)
    plans = oom_plans(doc)
    assert plans and doc["environment"].get("world_size") == "2"
    plan = plans[0]
    assert plan["settings"]["strategy"] == "ddp" and plan["settings"]["gpus"] == 2 and plan["settings"]["lora_r"] == 0
    assert plan["breakdown"]["communication_buckets"] > 0  # DDP's gradient copy, per rank
    assert plan["fits"] is False and plan["smallest_change"] and plan["smallest_change"]["peak_gib"] < 23.53


def test_no_model_named_no_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = diagnose(tmp_path, NO_MODEL, capsys)
    assert doc["matches"] and not oom_plans(doc)
