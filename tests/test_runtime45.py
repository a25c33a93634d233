"""runtime45 (issue #24, turn 45): the mechanisms that runtime-45's first score (public reports' runtime tracebacks,
benchmarks/results/devset-runtime-45-first-score.txt) left silent, each with the forms it must answer and the near forms
it must decline: frame lines a narrow console wrapped (kb/diagnose/parser.py ``_frame_head``), torch.distributed.checkpoint
raising, a sharded checkpoint's missing index, bitsandbytes' ROCm build reporting a GPU it cannot run on (tables/priors.toml's
runtime45 section), and a notebook kernel killed by a corrupted heap, which is no RAM running out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import kb.diagnose.stream as stream
from kb.knowledge.examples import devset_manifest, load_examples
from runtime_support import diagnosis, top_answer


# A rank-prefixed traceback printed through a console 72 columns wide: "File" ends its line, the quoted path runs on
# (cut inside a file name when it is longer than the width), and ", line N, in function" follows.
_WRAPPED = '''[rank1]: Traceback (most recent call last):
[rank1]:   File
[rank1]: "/opt/venv/lib/python3.12/site-packages/torch/distributed/checkpoint/state_dict_loade
[rank1]: r.py", line 210, in read_step
[rank1]:     plan = planner.create_local_plan()
[rank1]:   File
[rank1]: "/opt/venv/lib/python3.12/site-packages/torch/distributed/checkpoint/default_planner.py"
[rank1]: , line 240, in {function}
[rank1]:     meta = metadata.state_dict_metadata[key]
[rank1]:   File "/opt/venv/lib/python3.12/site-packages/torch/distributed/checkpoint/metadata.py",
[rank1]: line 99, in lookup
[rank1]:     return table[key]
[rank1]: KeyError: 'optim.state.lm_head.weight.exp_avg_sq'
'''


def test_a_frame_line_wrapped_by_a_narrow_console_is_read_as_one_frame() -> None:
    """kb/diagnose/parser.py _frame_head / _join_frame: "File" alone, the path cut inside its file name, the line number
    on the next line, and a path whose ", line N" wrapped; before runtime45 the traceback had no frame."""
    root = diagnosis(_WRAPPED.format(function="create_default_local_load_plan")).root_error
    assert root is not None and root.type == "KeyError"
    assert [(f.file.rsplit("/", 1)[-1], f.line, f.function) for f in root.frames] == [
        ("state_dict_loader.py", 210, "read_step"),
        ("default_planner.py", 240, "create_default_local_load_plan"),
        ("metadata.py", 99, "lookup"),
    ]
    assert root.frames[0].code == "plan = planner.create_local_plan()"


def test_the_wrapped_frames_are_read_alike_with_and_without_the_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prefilter skips lines without a trigger token unless something is open: a wrapped frame's pieces are read."""
    text = _WRAPPED.format(function="create_default_local_load_plan")
    with_filter = [(f.file, f.line, f.function) for f in diagnosis(text).root_error.frames]
    assert len(with_filter) == 3
    monkeypatch.setattr(stream, "PREFILTER", False)
    monkeypatch.setattr(stream, "FAST_CONTINUATION", False)
    assert [(f.file, f.line, f.function) for f in diagnosis(text).root_error.frames] == with_filter


@pytest.mark.parametrize("text", [
    "File\nValueError: the batch holds no labels\n",  # a word "File" alone, then an error: the error is still read
    'File "notes.txt" was not found in the upload\nValueError: the batch holds no labels\n',
    'File "/home/u/run.py\nValueError: the batch holds no labels\n',  # a head whose tail never comes
])
def test_a_line_that_only_looks_like_a_wrapped_frame_head_loses_nothing_after_it(text: str) -> None:
    root = diagnosis(text).root_error
    assert root is not None and (root.type, root.message) == ("ValueError", "the batch holds no labels")


def test_torch_distributed_checkpoint_raising_is_checkpoint_io() -> None:
    """tables/priors.toml [[frame]] torch/distributed/checkpoint/ (runtime45): the load plan asks for a key the saved
    checkpoint does not hold; with the frames wrapped (above) and as an ordinary traceback."""
    assert top_answer(_WRAPPED.format(function="create_default_local_load_plan")) == ("family", "checkpoint-io")
    plain = '''Traceback (most recent call last):
  File "/work/resume.py", line 40, in <module>
    dcp.load(state, checkpoint_id="ckpt/step-300")
  File "/opt/venv/lib/python3.12/site-packages/torch/distributed/checkpoint/state_dict_loader.py", line 160, in load
    _load_state_dict(state_dict=state, storage_reader=reader)
  File "/opt/venv/lib/python3.12/site-packages/torch/distributed/checkpoint/default_planner.py", line 300, in create_default_local_load_plan
    raise RuntimeError(f"Missing key in checkpoint state_dict: {fqn}.")
RuntimeError: Missing key in checkpoint state_dict: model.layers.0.mlp.gate_proj.lora_A.weight.
'''
    assert top_answer(plain) == ("family", "checkpoint-io")


def test_an_error_raised_in_torch_distributed_outside_its_checkpoint_package_is_not_checkpoint_io() -> None:
    text = '''Traceback (most recent call last):
  File "/work/train.py", line 12, in <module>
    dist.barrier(group=groups["dp"])
  File "/opt/venv/lib/python3.12/site-packages/torch/distributed/c10d_logger.py", line 81, in wrapper
    return func(*args, **kwargs)
KeyError: 'dp'
'''
    assert top_answer(text) != ("family", "checkpoint-io")


@pytest.mark.parametrize("message", [
    "Can't find a checkpoint index (pytorch_model.bin.index.json or model.safetensors.index.json) in runs/sft/checkpoint-800.",
    "Could not locate the checkpoint index model.safetensors.index.json under /data/merged",
])
def test_a_missing_index_of_a_sharded_checkpoint_is_checkpoint_io(message: str) -> None:
    """tables/priors.toml [[error]] (runtime45): the message names a sharded checkpoint's index file; the bare last line,
    rank-prefixed as torchrun prints it."""
    assert top_answer(f"[rank0]: ValueError: {message}\n") == ("family", "checkpoint-io")


def test_an_index_file_that_is_no_checkpoints_is_not_claimed() -> None:
    assert top_answer("ValueError: Can't find a search index (faiss.index.json) in ./retrieval\n") is None


_BNB_ROCM = '''{first}
Loading checkpoint shards: 100%|##########| 4/4 [00:12<00:00,  3.05s/it]
Error {error} at line 224 in file /src/csrc/ops.hip
'''


def test_bitsandbytes_rocm_build_reporting_a_gpu_it_cannot_run_is_cuda_setup() -> None:
    """tables/priors.toml [[process]] (runtime45): bitsandbytes' compiled library's report, from its HIP sources printed
    without the package's folder (the older rule needs bitsandbytes/csrc/)."""
    run = _BNB_ROCM.format(first="trainer = SFTTrainer(model=model, args=SFTConfig(output_dir='out'))",
                           error="invalid device function")
    assert top_answer(run) == ("family", "cuda-setup")
    assert top_answer(run.replace("/src/csrc/ops.hip", "C:\\bnb\\csrc\\pythonInterface.cpp")) == ("family", "cuda-setup")


def test_bitsandbytes_reporting_a_bad_call_or_another_programs_csrc_is_not_cuda_setup() -> None:
    bad_call = _BNB_ROCM.format(first="trainer.train()", error="an illegal memory access was encountered")
    assert top_answer(bad_call) != ("family", "cuda-setup")  # a call made with bad arguments or state: no setup
    other = "Error invalid device function at line 12 in file /src/csrc/render.cu\n"  # not one of bitsandbytes' files
    assert top_answer(other) != ("family", "cuda-setup")


def test_a_notebook_kernel_killed_by_a_corrupted_heap_is_not_host_oom() -> None:
    """tables/priors.toml's host-oom keyword rule for a crashed notebook session excludes heap corruption and bad memory
    accesses (runtime45; review44's leftover answered host-oom)."""
    assert top_answer("Jupyter kernel crashes with double free or corruption after trainer.train()\n") != ("family", "host-oom")
    assert top_answer("Colab kernel died with a segmentation fault during trainer.train()\n") != ("family", "host-oom")
    assert top_answer("Colab session crashed while fine-tuning llama with trainer.train()\n") == ("family", "host-oom")


RUNTIME45 = {e["file"]: e for e in load_examples(devset_manifest()) if e.get("set") == "runtime-45"}


@pytest.mark.parametrize("name", ["dev/runtime-45-llm-foundry-1231.txt", "dev/runtime-45-llm2vec-145.txt"])
def test_the_runtime45_reports_these_rules_answer(name: str) -> None:
    entry = RUNTIME45[name]
    text = (Path(devset_manifest()).parent / name).read_text(encoding="utf-8")
    assert top_answer(text) == ("family", entry["family"]) == ("family", "checkpoint-io")
