"""rt50b (turn 50, issue #24): qa-runtime-54's misses (corpus/reports-qa-runtime-54.jsonl), each by a rule that
generalises, with the near forms each rule must leave alone (benchmarks/results/runtime-turn50b.txt).

1. transformers' bitsandbytes environment check ("Using `bitsandbytes` 8-bit quantization requires Accelerate: `pip
   install accelerate` and the latest version of bitsandbytes", older "Using `load_in_8bit=True` requires
   Accelerate"): it fails when is_bitsandbytes_available() is False, i.e. torch sees no CUDA or bitsandbytes does not
   import (cuda-setup), not a code/library disagreement (api-drift's needs-accelerate no longer reads it) nor, because
   it prints pip commands, a missing package (the package-install import-guard rule excludes it). Forum pages drop the
   backticks and break the words across lines; bitsandbytes' "compiled without GPU support" warning above the error is
   cuda-setup's evidence too (families/cuda-setup.md's bnb-load-in-kbit-after-setup-banner).
   The Trainer's "Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`" stays api-drift.
"""

from __future__ import annotations


import pytest

from corpus_support import report_text as report
from runtime_support import top_answer


# 1. transformers' bitsandbytes environment check ---------------------------------------------------------------------

LOAD_FRAMES = (
    "Traceback (most recent call last):\n"
    "  File \"/content/train.py\", line 12, in <module>\n"
    "    model = AutoModelForCausalLM.from_pretrained(name, load_in_4bit=True)\n"
    "  File \"/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py\", line 3049, in from_pretrained\n"
    "    hf_quantizer.validate_environment(\n"
    "  File \"/usr/local/lib/python3.10/dist-packages/transformers/quantizers/quantizer_bnb_4bit.py\", line 62, in "
    "validate_environment\n"
    "    raise ImportError(\n"
)


@pytest.mark.parametrize("text", [
    report("forum:huggingface.co/spaces/autotrain-projects/autotrain-advanced/discussions/7"),
    report("gh:ludwig-ai/ludwig#3980"),
    report("forum:huggingface.co/NickyNicky/idefics-9b-instruct-pokemon/discussions/2"),
    report("forum:huggingface.co/spaces/IMJONEZZ/bookdemo"),
    report("forum:huggingface.co/spaces/OS07/brobit"),
    report("forum:huggingface.co/spaces/lehmanc25/WLUChatbot"),
    LOAD_FRAMES + "ImportError: Using `bitsandbytes` 8-bit quantization requires Accelerate: `pip install accelerate` "
    "and the latest version of bitsandbytes: `pip install -i https://pypi.org/simple/ bitsandbytes`\n",
    LOAD_FRAMES + "ImportError: Using `load_in_8bit=True` requires Accelerate: `pip install accelerate` and the latest "
    "version of bitsandbytes `pip install -i https://test.pypi.org/simple/ bitsandbytes` or pip install bitsandbytes`\n",
])
def test_bitsandbytes_environment_check_is_cuda_setup(text: str) -> None:
    assert top_answer(text) == ("family", "cuda-setup")


@pytest.mark.parametrize("text", [
    # the Trainer's own accelerate version check: the installed accelerate is older than the code needs
    "ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`: Please run `pip install "
    "transformers[torch]` or `pip install accelerate -U`\n",
])
def test_trainer_accelerate_requirement_stays_api_drift(text: str) -> None:
    assert top_answer(text) == ("family", "api-drift")


@pytest.mark.parametrize("text", [
    # a stack library's import guard for a package that is simply missing stays package-install
    "ImportError: Unsloth: Please install unsloth_zoo via `pip install unsloth-zoo`\n",
])
def test_import_guard_of_a_missing_package_stays_package_install(text: str) -> None:
    assert top_answer(text) == ("family", "package-install")
