"""Turn 48's review (review48): defects found in what landed on main this turn, each with the input that showed it."""

from __future__ import annotations

import pytest
from rules_support import answers, families, top

# ---- 1. an image-generation program's run: the priors and the learned fallback keep [program] too ---------------------
# tables/priors.toml [program] gives up a model computation's families (dtype, shape, OOM, device-side assert, ...) in
# an image-generation program's run. diagnosis.py dropped those families' signature matches, and then, nothing having
# matched, the priors answered the same families from the exception class, the message or a process line.

COMFY_OOM = "!!! Exception during processing !!! Allocation on device \ntorch.OutOfMemoryError: Allocation on device \n"
WEBUI_ASSERT = ("*** Error completing request\n../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: "
                "block: [0,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` faile\n")
COMFY_CAT = ("!!! Exception during processing !!! Tensors must have same number of dimensions: got 2 and 3\n"
             "RuntimeError: Tensors must have same number of dimensions: got 2 and 3\n")


@pytest.mark.parametrize("text", [COMFY_OOM, WEBUI_ASSERT, COMFY_CAT])
def test_priors_do_not_answer_a_program_family_in_an_image_generation_run(text: str) -> None:
    """Were cuda-oom (prior:error, medium), device-side-assert (prior:process), shape-mismatch (prior:error)."""
    assert answers(text) == []


@pytest.mark.parametrize("text, family", [
    (COMFY_OOM.split("\n", 1)[1], "cuda-oom"),
    (WEBUI_ASSERT.split("\n", 1)[1], "device-side-assert"),
    (COMFY_CAT.split("\n", 1)[1], "shape-mismatch"),
])
def test_the_same_errors_without_the_programs_line_keep_their_prior(text: str, family: str) -> None:
    assert top(text) == (family, "family-prior")


# ---- 2. kohya's "学習開始" line: only kohya's own "running training / 学習開始" -----------------------------------------
# "学習開始" ("training starts") is what any Japanese training script logs (logger.info("学習開始") before trainer.train()):
# an LLM fine-tuning run's OOM was read as kohya's and its signature dropped.
JAPANESE_LLM_RUN = """\
学習開始
Traceback (most recent call last):
  File "/content/train_lora.py", line 88, in <module>
    trainer.train()
  File "/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", line 1539, in train
    return inner_training_loop(
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1501, in _call_impl
    return forward_call(*args, **kwargs)
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 172.00 MiB (GPU 0; 14.75 GiB total capacity; \
13.52 GiB already allocated; 40.81 MiB free; 13.82 GiB reserved in total by PyTorch)
"""


def test_a_japanese_training_scripts_own_start_line_is_not_kohyas() -> None:
    assert top(JAPANESE_LLM_RUN) == ("cuda-oom", "family-evidence")


def test_kohyas_start_line_still_marks_its_run() -> None:
    text = "running training / 学習開始\n" + JAPANESE_LLM_RUN.split("\n", 1)[1]
    assert families(text) == []


# ---- 3. a private torch op's argument error is api-drift only when it is not the caller's data ----------------------
# The rt48 prior reads "_op(): argument 'x' (position N) must be T, not U" as a library calling a private torch op with
# another release's arguments (huggingface/transformers#16587). A public function handed a Python list or a NumPy array
# raises the same shape through its private op: torch.unique([1, 2]) says "_unique2(): argument 'input' (position 1)
# must be Tensor, not list" (torch 2.x), the caller's data, not two releases that disagree.
@pytest.mark.parametrize("message", [
    "TypeError: _unique2(): argument 'input' (position 1) must be Tensor, not list",
    "TypeError: _unique2(): argument 'input' (position 1) must be Tensor, not numpy.ndarray",
    "TypeError: _unique2(): argument 'input' (position 1) must be Tensor, not tuple",
])
def test_a_private_op_given_the_callers_list_is_not_api_drift(message: str) -> None:
    assert "api-drift" not in families(message + "\n")


def test_the_deberta_private_op_report_stays_api_drift() -> None:
    text = ("TypeError: _softmax_backward_data(): argument 'input_dtype' (position 4) must be torch.dtype, not "
            "Tensor\n")
    assert top(text) == ("api-drift", "family-prior")


# ---- 4. another program's banner rules out an error prior as it rules out a signature --------------------------------
# diagnosis.py drops a signature's match on an error line without frames when the report's first lines are another
# program's banner (banner_lines, other_software_report); the error priors read the same line unchecked, so rt48's
# torch.cat rank prior answered shape-mismatch under Ultralytics' banner where the family's own torch.cat signature
# stayed silent.
YOLO = "Ultralytics YOLOv8.0.139 🚀 Python-3.9.17 torch-2.0.0+cu117 CUDA:0 (Tesla T4, 15102MiB)\n"


@pytest.mark.parametrize("error", [
    "RuntimeError: Tensors must have same number of dimensions: got 2 and 3",
    "torch.OutOfMemoryError: Allocation on device ",
])
def test_an_error_prior_does_not_read_a_line_under_another_programs_banner(error: str) -> None:
    assert answers(YOLO + error + "\n") == []


def test_the_signature_of_the_same_shape_was_already_silent_there() -> None:
    error = ("RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 20 but got size 19 for "
             "tensor number 1 in the list.")
    assert families(error + "\n") == ["shape-mismatch"]
    assert answers(YOLO + error + "\n") == []
