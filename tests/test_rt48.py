"""rt48 (issue #24, turn 48): what runtime-48's first score taught (benchmarks/results/runtime-turn48-after.txt).

Priors (tables/priors.toml, block rt48), each a library's own message or log line rather than one report's wording, and
each holding only where no signature matched:
- torch's load_state_dict opening "size mismatch for <parameter>" cut or retold before its "copying a param" tail is
  checkpoint-io's (a checkpoint of another model or head), not a shape error of the run's tensors (the keyword rule
  of shape-mismatch reads bare "size mismatch"); an adapter's parameters stay adapter-config's.
- a torch CUDA kernel's assertion line (its .cu file, block and thread, "Assertion `") cut before "failed".
- the old from_pretrained's "Model name ... was not found in model name list ... We assumed ... was a path or url but
  couldn't find any file" (a wrong model id): hub-access; the first sentence alone is not read.
- peft's "Cannot merge LORA layers when the model is gptq quantized", torch.cat's "Tensors must have same number of
  dimensions", a private torch op's argument error (api-drift), accelerate's DummyOptim used as a real optimizer.
device-side-assert's "index N is out of bounds for dimension D with size S" signature leaves "with size 0": an empty
tensor indexed has no index past a table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge
from runtime_support import top_answer

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"


@pytest.mark.parametrize("name, family", [
    # https://github.com/qanastek/HugsVision/issues/11 (was shape-mismatch: wrong)
    ("HugsVision-11", "checkpoint-io"),
    # https://github.com/Z1zs/MMUnlearner/issues/4 (was silent: the kernel line cut inside "failed")
    ("MMUnlearner-4", "device-side-assert"),
    # https://github.com/huggingface/transformers/issues/511 (was silent)
    ("transformers-511", "hub-access"),
    # https://github.com/QwenLM/Qwen-VL/issues/281 (was silent)
    ("Qwen-VL-281", "adapter-config"),
    # https://github.com/crux82/ganbert-pytorch/issues/20 (was silent)
    ("ganbert-pytorch-20", "shape-mismatch"),
    # https://github.com/huggingface/transformers/issues/16587 (was silent)
    ("transformers-16587", "api-drift"),
])
def test_runtime48_reports(name: str, family: str) -> None:
    text = (DEV / f"runtime-48-{name}.txt").read_text(encoding="utf-8")
    assert top_answer(text) == ("family", family)


def test_dummy_optim_stepped_is_sharding_config() -> None:
    """https://github.com/FlagAlpha/Llama-Chinese/issues/267 (runtime-45, silent before rt48)."""
    text = (DEV / "runtime-45-Llama-Chinese-267.txt").read_text(encoding="utf-8")
    assert top_answer(text) == ("family", "sharding-config")
    assert top_answer("AttributeError: 'DummyScheduler' object has no attribute 'get_last_lr'\n") == \
        ("family", "sharding-config")
    # importing the placeholder from an accelerate that lacks it is another failure (api-drift's, as before)
    assert top_answer("ImportError: cannot import name 'DummyOptim' from 'accelerate.utils'\n") != \
        ("family", "sharding-config")


def test_an_empty_tensor_indexed_is_not_device_side_assert() -> None:
    """https://github.com/flairNLP/flair/issues/1181 (out of scope, claimed device-side-assert before rt48)."""
    text = (DEV / "runtime-48-flair-1181.txt").read_text(encoding="utf-8")
    assert top_answer(text) is None
    # an index past a non-empty dimension is still the family's
    assert top_answer("IndexError: index 5 is out of bounds for dimension 0 with size 4\n") == \
        ("family", "device-side-assert")
    assert top_answer("IndexError: index 0 is out of bounds for dimension 0 with size 10\n") == \
        ("family", "device-side-assert")


@pytest.mark.parametrize("line, family", [
    ("Error loading model: size mismatch for bert.embeddings.word_embeddings.weight", "checkpoint-io"),
    ("ViTForImageClassification: size mismatch for classifier.bias", "checkpoint-io"),
    # bare words of a shape error: the keyword rule of shape-mismatch, as before
    ("Training fails with a size mismatch between logits and labels", "shape-mismatch"),
])
def test_size_mismatch_for_a_parameter(line: str, family: str) -> None:
    assert top_answer(line + "\n") == ("family", family)


@pytest.mark.parametrize("line", [
    "There is a size mismatch for my custom dataset when fine-tuning",  # no dotted parameter name
    # an adapter's parameter is adapter-config's to read (its signature reads the whole load report), not this rule's
    "size mismatch for base_model.model.model.layers.0.self_attn.q_proj.lora_A.default.weight",
])
def test_size_mismatch_for_what_is_no_models_parameter(line: str) -> None:
    assert top_answer(line + "\n") != ("family", "checkpoint-io")


@pytest.mark.parametrize("line", [
    "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:702: indexSelectLargeIndex: block: [162,0,0], thread: [96,0,0] "
    "Assertion `srcIndex < srcSel",
    "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] "
    "Assertion `t >= 0 && t < n_cla",
])
def test_a_cut_kernel_assertion_line(line: str) -> None:
    assert top_answer(line + "\n") == ("family", "device-side-assert")


def test_a_host_assert_is_not_a_kernel_line() -> None:
    """glibc's assert() of C/C++ code (no .cu file, no block and thread) is not read as a kernel's."""
    assert top_answer("python: src/aio.cpp:42: void run(): Assertion `n_completes >= min_completes' failed.\n") is None


def test_model_name_not_in_list_needs_the_path_sentence() -> None:
    """https://github.com/huggingface/transformers/issues/1210: the first sentence alone (DistilBERT through the BERT
    tokenizer, model-unsupported by its label) is also what a wrong class prints: not read."""
    text = (DEV / "runtime-48-transformers-1210.txt").read_text(encoding="utf-8")
    assert top_answer(text) != ("family", "hub-access")
    line = ("Model name 'my-org/bert-ft' was not found in tokenizers model name list (bert-base-uncased). We assumed "
            "'my-org/bert-ft' was a path, a model identifier, or url to a directory containing vocabulary files named "
            "['vocab.txt'] but couldn't find such vocabulary files at this path or url.\n")
    assert top_answer(line) == ("family", "hub-access")


@pytest.mark.parametrize("line, family", [
    ("ValueError: Cannot merge LORA layers when the model is gptq quantized", "adapter-config"),
    ("ValueError: Cannot merge LORA layers when the model is loaded in 8-bit mode", "adapter-config"),
    ("RuntimeError: Tensors must have same number of dimensions: got 3 and 4", "shape-mismatch"),
    ("TypeError: _softmax_backward_data(): argument 'input_dtype' (position 4) must be torch.dtype, not Tensor",
     "api-drift"),
])
def test_library_messages(line: str, family: str) -> None:
    assert top_answer(line + "\n") == ("family", family)


def test_a_public_functions_argument_error_is_not_api_drift() -> None:
    """A public torch function given the wrong type is the caller's mistake, not a release's: not read as api-drift."""
    assert top_answer("TypeError: embedding(): argument 'indices' (position 2) must be Tensor, not list\n") != \
        ("family", "api-drift")


def test_the_new_process_lines_stay_cheap() -> None:
    from timing_support import assert_cheap

    def apply(text: str) -> object:
        return diagnose_lines(text.splitlines(keepends=True), load_knowledge())

    size = "size mismatch for " + "a." * 200 + "\n"
    kernel = "ATen/native/cuda/X.cu:1: " + "k" * 150 + ": block: [1,1,1], thread: [1,1,1] Assertion `\n"
    names = "Model name '" + "m" * 250 + "' was not found in model name list (" + "x, " * 900 + "\n"
    for text in (size * 2000, kernel * 2000, names * 200):
        assert_cheap(apply, text)
