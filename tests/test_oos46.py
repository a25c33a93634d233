"""Reports of software next to the stack stay unclaimed (issue #24: a wrong answer costs more than a silent one), turn 46.

corpus/reports-gh-unrelated-46.jsonl holds 104 real GitHub issues gathered by broad queries in the trainers, UIs and
toolkits whose users speak the stack's words (LoRA, training, accelerate launch): SD/video/audio LoRA trainers and UIs,
mmaction2, voice trainers, YOLOv8, NeMo ASR, and LoRa radios; 100 are title-only, 4 carry error output. Its first score
claimed none (benchmarks/results/corpus-turn46-unrelated46-first-score.txt).

Three mechanisms, each data read through the one table of other software (tables/priors.toml):

- [other] words and [other_code] paths name the neighbours this batch and the sealed batches met that the tables did not
  know: musubi-tuner, DiffSynth-Studio, ai-toolkit, FluxGym, SD.Next, FramePack, LTX-2, RVC, so-vits-svc, ... and
  OpenMMLab's other codebases (mmaction and the rest; not mmengine, xtuner's runner). A title that names one gets no
  keyword answer; an error whose deciding frame is in one of their packages gets no answer at all.
- A traceback cut before its exception line still shows whose code ran (kb/diagnose/priors.py other_software_report,
  ``cut``): when every such traceback's deciding frame is other software's, the low-confidence stages (process
  evidence, keyword rules, the learned fallback) leave the report alone. Signatures are not ruled out by it (a
  "Please upgrade transformers" printed under a ComfyUI node's cut traceback is still the stack's: dev set), and a
  library frame's real error is still answered (peft raising under a diffusers LoRA script).
- [other_code] ``named_record``: a report whose first lines are records of Python's logging under a logger that [other]
  names ("... - ControlNet - INFO - ...", mmcv's runner's "- mmaction - INFO -") is that program's log, as a banner is: an
  error without frames printed in it is not answered by a signature (light-and-ray/sd-webui-replacer#118; also after a
  syslog prefix: dask/distributed#6110).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from unrelated_support import records, top

REPO = Path(__file__).resolve().parent.parent
BATCH = REPO / "corpus" / "reports-gh-unrelated-46.jsonl"


def _text(record: dict) -> str:
    """What scripts/corpus.py gives kb: the error output, or the title when there is none."""
    return record["error"] if record["error"].strip() else record["title"]


def test_batch_is_out_of_scope_and_its_first_score_kept() -> None:
    rows = records(BATCH)
    assert len(rows) == 104 == len({r["id"] for r in rows})
    assert all(r["label"]["family"] == "out-of-scope" for r in rows)
    assert sum(1 for r in rows if r["error"].strip()) == 4
    assert all(r["first_score"]["answer"] is None and r["first_score"]["grade"] == "right" for r in rows)


def test_batch_unclaimed() -> None:
    claimed = {r["id"]: got for r in records(BATCH) if (got := top(_text(r))) is not None}
    assert claimed == {}


# --- [other] words: a title that names a neighbour of the stack ---------------------------------------------------

@pytest.mark.parametrize("title", [
    "musubi-tuner LoRA training stuck at epoch 1",        # hang, by keyword, before
    "DiffSynth-Studio LoRA training loss nan",            # loss-nan
    "SD.Next LoRA training out of memory",                # cuda-oom
    "mmaction2 training stuck with 4 GPUs",               # hang
    "FramePack LoRA training out of memory",              # cuda-oom
    "LTX-2 LoRA training loss NaN with FSDP",             # loss-nan
    "ai-toolkit LoRA training stuck",                     # hang
])
def test_title_naming_a_neighbour_is_not_claimed(title: str) -> None:
    assert top(title) is None


@pytest.mark.parametrize(("title", "family"), [
    ("LoRA training stuck at epoch 1", "family:hang"),
    ("LoRA training loss nan", "family:loss-nan"),
    ("QLoRA training out of memory on 2 GPUs", "family:cuda-oom"),
    ("Llama-3 SFT with accelerate stuck at step 0", "family:hang"),
])
def test_the_same_titles_without_a_neighbour_keep_their_answer(title: str, family: str) -> None:
    """"LoRA" alone names the stack as much as a diffusion trainer: a title that names nothing else keeps its answer
    (dropping "lora" from [stack] cost three right answers of the dev corpus for two out-of-scope ones: not done)."""
    assert top(title) == family


# --- [other_code] paths: an error raised under an mmaction head ---------------------------------------------------

MMACTION_SHAPE = """\
Traceback (most recent call last):
  File "tools/train.py", line 205, in <module>
    main()
  File "/home/u/mmaction2/mmaction/apis/train.py", line 163, in train_model
    runner.run(data_loaders, cfg.workflow, cfg.total_epochs, **runner_kwargs)
  File "/home/u/mmaction2/mmaction/models/heads/tsn_head.py", line 89, in forward
    cls_score = self.fc_cls(x)
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/module.py", line 1102, in _call_impl
    return forward_call(*input, **kwargs)
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/linear.py", line 103, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x1024 and 2048x400)
"""


def test_shape_error_raised_under_an_mmaction_head_is_not_claimed() -> None:
    assert top(MMACTION_SHAPE) is None


def test_the_same_shape_error_under_the_users_own_head_is_shape_mismatch() -> None:
    text = MMACTION_SHAPE.replace("/home/u/mmaction2/mmaction/models/heads/tsn_head.py", "/home/u/project/heads.py")
    assert top(text) == "family:shape-mismatch"


# --- a cut traceback's deciding frame -----------------------------------------------------------------------------

MMCV_KILLED = """\
2021-05-13 10:01:02,113 - INFO - Epoch [1][20/100]   lr: 4.800e-04, eta: 0:01:13, loss: 4.6039
Traceback (most recent call last):
  File "tools/train.py", line 197, in <module>
    main()
  File "/hy-nas/12/mm2/mmaction/apis/train.py", line 163, in train_model
    runner.run(data_loaders, cfg.workflow, cfg.total_epochs, **runner_kwargs)
  File "/usr/local/lib/python3.8/dist-packages/mmcv/runner/epoch_based_runner.py", line 47, in train
    for i, data_batch in enumerate(self.data_loader):
Killed
"""


def test_killed_under_a_cut_traceback_of_an_mmcv_runner_is_not_host_oom() -> None:
    """The process evidence "Killed" after a traceback cut in mmcv's epoch runner: that runner's run, not the stack's
    (host-oom before: the process rule's context needs only a run's words, "Epoch")."""
    assert top(MMCV_KILLED) is None


def test_killed_under_a_cut_traceback_of_the_stack_stays_host_oom() -> None:
    text = MMCV_KILLED.replace("/hy-nas/12/mm2/mmaction/apis/train.py", "/home/me/proj/train_utils.py").replace(
        "/usr/local/lib/python3.8/dist-packages/mmcv/runner/epoch_based_runner.py",
        "/usr/local/lib/python3.8/dist-packages/transformers/trainer.py")
    assert top(text) == "family:host-oom"


DIFFUSERS_PEFT = """\
Traceback (most recent call last):
  File "/home/u/diffusers/examples/dreambooth/train_dreambooth_lora_sdxl.py", line 1987, in <module>
    main(args)
  File "/home/u/diffusers/examples/dreambooth/train_dreambooth_lora_sdxl.py", line 1164, in main
    unet.add_adapter(unet_lora_config)
  File "/usr/local/lib/python3.10/site-packages/diffusers/loaders/peft.py", line 752, in add_adapter
    inject_adapter_in_model(adapter_config, self, adapter_name)
  File "/usr/local/lib/python3.10/site-packages/peft/mapping.py", line 228, in inject_adapter_in_model
    peft_model = tuner_cls(model, peft_config, adapter_name=adapter_name, low_cpu_mem_usage=low_cpu_mem_usage)
  File "/usr/local/lib/python3.10/site-packages/peft/tuners/tuners_utils.py", line 512, in inject_adapter
    raise ValueError(
ValueError: Target modules {'to_k', 'to_q'} not found in the base model. Please check the target modules and try again.
"""


def test_peft_raising_under_a_diffusers_lora_script_is_still_answered() -> None:
    """A user who trains an SD LoRA with diffusers and peft and meets peft's own error gets kb's answer: the library
    raised it (the cut-traceback rule reads only tracebacks without their exception line)."""
    assert top(DIFFUSERS_PEFT) == "case:KB0029"  # lora-target-modules-from-other-architecture


# --- [other_code] named_record: a log of another program's logger ---------------------------------------------------

REPLACER = "gh:light-and-ray/sd-webui-replacer#118"
BATCH_42 = REPO / "corpus" / "reports-gh-unrelated-42.jsonl"


def _replacer() -> str:
    return next(r["error"] for r in records(BATCH_42) if r["id"] == REPLACER)


def test_bare_cuda_error_in_controlnets_log_is_not_claimed() -> None:
    """light-and-ray/sd-webui-replacer#118 (gh-unrelated-42): an SD web UI's ControlNet records ("... - ControlNet - INFO
    - Loading model: control_v11p_sd15_inpaint"), then torch's bare "CUDA error: device-side assert triggered";
    claimed device-side-assert at first score and since."""
    record = next(r for r in records(BATCH_42) if r["id"] == REPLACER)
    assert record["first_score"]["answer"] == "family:device-side-assert"
    assert " - ControlNet - INFO - " in _replacer()
    assert top(_replacer()) is None


def test_the_same_error_under_the_runs_own_logger_stays_device_side_assert() -> None:
    assert top(_replacer().replace(" - ControlNet - ", " - __main__ - ")) == "family:device-side-assert"


def test_named_record_names_its_group() -> None:
    """The table's check: a `named_record` regex without the group `name` does not load."""
    from kb.knowledge.model import KnowledgeError
    from kb.knowledge.registry import load_knowledge
    from kb.knowledge.tables import check_prior_regexes

    data = load_knowledge().tables["priors"]
    broken = {**data, "other_code": {**data["other_code"], "named_record": r"^(?:\w+) - INFO - "}}
    with pytest.raises(KnowledgeError, match="named_record"):
        check_prior_regexes(broken, "tables/priors.toml")


DASK = "gh:dask/distributed#6110"
BATCH_39 = REPO / "corpus" / "reports-gh-unrelated-39.jsonl"


def _dask() -> str:
    return next(r["error"] for r in records(BATCH_39) if r["id"] == DASK)


def test_oom_killer_lines_in_dasks_log_are_not_claimed() -> None:
    """dask/distributed#6110 (gh-unrelated-39): the kernel's OOM-killer lines for a Dask worker's Python process, and on
    line 3 Dask's own record after a syslog prefix ("... cloud-init[1004]: 2022-04-16 22:14:48,224 - distributed.core -
    INFO - ..."); claimed host-oom (the kernel-oom-killer signature) at first score and since."""
    record = next(r for r in records(BATCH_39) if r["id"] == DASK)
    assert record["first_score"]["answer"] == "family:host-oom"
    assert top(_dask()) is None


def test_the_same_oom_killer_lines_under_the_runs_own_logger_stay_host_oom() -> None:
    text = _dask()
    for name in ("distributed.core", "distributed.nanny", "distributed.worker", "Nanny"):
        text = text.replace(name, "__main__")
    assert top(text) == "family:host-oom"
