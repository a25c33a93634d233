"""Errors as people paste them into issue trackers: lower-case in prose, markdown eating the backticks."""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge


def top_family(text: str) -> str | None:
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    return answers[0].match.entry.family if answers and answers[0].kind == "case" else (
        answers[0].match.entry.slug if answers else None)


@pytest.mark.parametrize("text", [
    'Finetune, cuda out of memory\n',
    'I get "cuda out of memory" on an A100 with 40GB\n',
    "the GPU out of memory after a few iterations of validation\n",
])
def test_lower_case_cuda_oom_in_prose(text: str) -> None:
    assert top_family(text) == "cuda-oom"


def test_host_out_of_memory_is_not_cuda_oom() -> None:
    assert top_family("Killed: out of memory\n") != "cuda-oom"


@pytest.mark.parametrize("line", [
    "indexSelectLargeIndex: block: [213,0,0], thread: [63,0,0] Assertion srcIndex < srcSelectDimSize failed.",
    "indexSelectLargeIndex: block: [213,0,0], thread: [63,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
])
def test_cuda_assertion_with_or_without_backticks(line: str) -> None:
    assert top_family(line + "\n") == "device-side-assert"


def test_partitioned_embedding_weight_is_sharding_config() -> None:
    text = ('  File "/x/torch/nn/functional.py", line 2551, in embedding\n'
            "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
            "RuntimeError: 'weight' must be 2-D\n")
    assert top_family(text) == "sharding-config"


def test_transformers_peft_version_check_is_api_drift() -> None:
    text = ("ValueError: The version of PEFT you are using is not compatible, please use a version that is "
            "greater than 0.5.0\n")
    assert top_family(text) == "api-drift"


@pytest.mark.parametrize(("line", "family"), [
    ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "precision-unsupported"),
    ("ValueError: Please specify `target_modules` in `peft_config`", "adapter-config"),
    ("ValueError: `.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use the model as it is.",
     "device-mismatch"),
    ("RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'", "device-mismatch"),
    ("ValueError: Cannot use chat template functions because tokenizer.chat_template is not set and no template "
     "argument was passed!", "training-data"),
])
def test_library_messages_name_their_family(line: str, family: str) -> None:
    assert top_family(line + "\n") == family
