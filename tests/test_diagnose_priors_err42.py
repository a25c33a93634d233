"""The err42 rules (issue #24): each on the error output of the real report of dev-corpus batch gh-err-07 it was built
from (the URL beside each) and on the near forms it must decline or keep.

- tables/priors.toml, bitsandbytes' csrc [[process]] rule: the CUDA error's name decides whether a failed call of
  bitsandbytes' compiled library is the setup's (no kernel image, operation not supported) or a call made with bad
  arguments or state (invalid argument, an illegal memory access), which is no setup problem;
- families/adapter-config.md quantized-model-not-trainable-old: transformers 4.25-4.26's first wording of the Trainer's
  refusal of an 8-bit model ("Training an 8-bit model is not supported yet");
- families/multi-gpu-launch.md cuda-peer-to-peer-error: CUDA's peer-to-peer errors, which only a process mapping several
  GPUs' memory meets.
"""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.registry import load_knowledge
from rules_support import ruled, top

BNB = "/mmfs1/gscratch/zlab/timdettmers/git/bitsandbytes/csrc/pythonInterface.c"


# -- bitsandbytes' compiled library: the CUDA error's name ---------------------------------------------------------------
def test_an_invalid_argument_in_bitsandbytes_paged_optimizer_is_not_a_setup_problem() -> None:
    # axolotl-ai-cloud/axolotl#864: paged_adamw_32bit restoring its state on resume from a checkpoint (was cuda-setup)
    assert ruled(f"Error invalid argument at line 393 in file {BNB}\n") == []


@pytest.mark.parametrize("cuda_error", ["an illegal memory access was encountered", "misaligned address",
                                        "unspecified launch failure", "out of memory"])
def test_other_errors_of_a_call_made_with_bad_arguments_or_state_are_declined(cuda_error: str) -> None:
    assert ("cuda-setup", "family-prior") not in ruled(f"Error {cuda_error} at line 393 in file {BNB}\n")


@pytest.mark.parametrize("text", [
    # InternLM/xtuner#247 (the dev set's prior-bnb-csrc-error-xtuner-247): the paged optimizer on a GPU/driver without it
    f"Error operation not supported at line 380 in file {BNB}\n",
    # bitsandbytes-foundation/bitsandbytes#147: a Windows build without kernels for the card
    "Error no kernel image is available for execution on the device at line 167 in file "
    "D:\\ai\\tool\\bitsandbytes\\csrc\\ops.cu\n",
])
def test_the_gpu_driver_or_build_refusing_a_call_is_still_cuda_setup(text: str) -> None:
    found = top(text)  # "no kernel image" is also the family's own signature
    assert found is not None and found[0] == "cuda-setup", found


# -- transformers' Trainer refusing an 8-bit model: its first wording ---------------------------------------------------
REFUSED = ("ValueError: The model you want to train is loaded in 8-bit precision. Training an 8-bit model is not "
           "supported yet. \n")


def test_the_trainers_first_refusal_of_an_8bit_model_is_adapter_config() -> None:
    assert top(REFUSED) == ("adapter-config", "family-evidence")


def test_it_decides_before_the_out_of_memory_of_a_later_run() -> None:
    # huggingface/transformers#26071: the refusal, then (a run without load_in_8bit) accelerate's batch-size search
    # giving up; the refusal is the root error and was left unmatched, so the OOM line answered cuda-oom
    text = REFUSED + "RuntimeError: No executable batch size found, reached zero.\n"
    assert top(text) == ("adapter-config", "family-evidence")


# -- CUDA's peer-to-peer errors ----------------------------------------------------------------------------------------
def test_peer_mapping_resources_exhausted_is_multi_gpu_launch() -> None:
    # hiyouga/LlamaFactory#1213: accelerate's MULTI_GPU config with num_processes 10 on one node
    text = ("RuntimeError: CUDA error: peer mapping resources exhausted\n"
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
            "be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
    assert top(text) == ("multi-gpu-launch", "family-evidence")


def test_a_pair_of_cards_without_peer_access_is_multi_gpu_launch() -> None:
    text = "RuntimeError: CUDA error: peer access is not supported between these two devices\n"
    assert top(text) == ("multi-gpu-launch", "family-evidence")


def test_other_cuda_errors_keep_their_families() -> None:
    assert top("RuntimeError: CUDA error: device-side assert triggered\n") == ("device-side-assert",
                                                                                "family-evidence")
    assert top("RuntimeError: CUDA error: invalid argument\n") is None


def test_the_peer_to_peer_cause_is_the_one_its_wording_points_to() -> None:
    # the family's triage names the signature, so the answer lists the peer-to-peer cause (NCCL_P2P_DISABLE) first
    doc = diagnosis_document(diagnose_lines(["RuntimeError: CUDA error: peer mapping resources exhausted\n"],
                                            load_knowledge()))
    match = doc["matches"][0]
    pointed = [t["cause"] for t in match["triage"] if match["signature"] in (t.get("signatures") or ())]
    assert len(pointed) == 1 and pointed[0].startswith("Peer-to-peer"), pointed
