"""Title precision (issue #24): a signature that matched nothing but a title (one untyped line: no exception type, no
frame, nothing after it) asks what a title keyword rule asks (tables/priors.toml): no word of other software (the
[other] table), and, where the line is in the words of a keyword rule that ``needs_stack`` ("out of memory", "hangs",
"killed"), a word of the fine-tuning stack. Typed errors and tracebacks answer as before. Inputs are written in the
forms titles take, not copied from reports. The learned fallback is left out (``RULES``): these are the rules' answers.
"""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.match import _title_only
from kb.diagnose.priors import title_ruled_out
from kb.knowledge.registry import load_knowledge
from kb.knowledge.tables import read_table
from rules_support import SIGNATURES, families

TWO_DEVICES = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


@pytest.mark.parametrize("title", [
    "SDXL training CUDA out of memory",
    "CUDA out of memory when training YOLOv8 on a 3060",
    "ComfyUI: CUDA out of memory. Tried to allocate 2.00 GiB",
])
def test_an_oom_title_with_other_software_is_not_claimed(title: str) -> None:
    assert families(title + "\n") == []


@pytest.mark.parametrize("title", [
    f"ComfyUI: {TWO_DEVICES}",
    f"Stable Diffusion img2img: {TWO_DEVICES}",
    f"tensorflow {TWO_DEVICES}",
])
def test_a_title_naming_other_software_is_not_claimed_by_a_specific_signature(title: str) -> None:
    assert families(title + "\n") == []


@pytest.mark.parametrize(("title", "family"), [
    ("CUDA out of memory with qlora on a 7B model", "cuda-oom"),
    ("SFTTrainer: CUDA out of memory. Tried to allocate 1.00 GiB", "cuda-oom"),
    ("Finetuning 20B model with accelerate and LoRA: " + TWO_DEVICES, "device-mismatch"),
    (TWO_DEVICES, "device-mismatch"),  # a specific wording needs no word of the stack
    ("[GRPOTrainer] Asking to pad but the tokenizer does not have a padding token", "training-data"),
])
def test_a_stack_title_is_still_answered_by_its_signature(title: str, family: str) -> None:
    assert families(title + "\n", SIGNATURES)[:1] == [family]


@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n",  # typed: any program's, as before
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    trainer.train()\n"
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n",
])
def test_typed_errors_and_tracebacks_answer_as_before(text: str) -> None:
    assert families(text, SIGNATURES)[:1] == ["cuda-oom"]


def test_an_untyped_line_inside_a_log_is_not_a_title() -> None:
    errors = diagnose_lines(["step 10 loss 1.2\n", "CUDA out of memory\n"], load_knowledge()).errors
    assert [e.message for e in errors] == ["CUDA out of memory"]
    assert not _title_only(errors[0])  # a line before it: a log, not a title
    assert families("step 10 loss 1.2\nCUDA out of memory\n", SIGNATURES)[:1] == ["cuda-oom"]


def test_the_title_rule_reads_the_table() -> None:
    table = read_table("priors")
    assert title_ruled_out("CUDA out of memory with qlora", table) is None
    assert "other software" in (title_ruled_out("kohya lora CUDA out of memory", table) or "")
    # a signature's own wording is not asked for a stack word (a fine-tuning OOM title often names none)
    assert title_ruled_out("Finetune, cuda out of memory", table) is None
    assert title_ruled_out(TWO_DEVICES, table) is None
    assert title_ruled_out("CUDA out of memory", None) is None  # a knowledge root without priors
    assert "other software" in (title_ruled_out("ComfyUI " + TWO_DEVICES, table) or "")
