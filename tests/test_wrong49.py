"""What turn 49's wrong49 (issue #24) changed: a run of another kind of model's trainer or generator (kohya's sd-scripts
and the kohya_ss GUI, lora-scripts, musubi-tuner, FramePack, CogVideoX's factory) is out of scope as a whole, the stack's
imports, installs and API in it included (tables/priors.toml [[program_line]] ``whole_run``); benchmarks/results/
wrong-turn49.txt says why. The texts are the dev corpus's records (their error output and address); each near form is
the same error without the program's own lines, which keeps its answer. Every answer counts here, the learned
fallback's too."""

from __future__ import annotations

import pytest

from corpus_support import record_of
from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge


def _diagnosis(text: str):  # noqa: ANN202 - a Diagnosis
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge())


def _families(text: str) -> list[str]:
    return [a.match.entry.family if a.match.entry.kind == "case" else a.match.entry.key  # type: ignore[union-attr]
            for a in _diagnosis(text).answers]


# Each record: its address, and the line of the program's own that the input holds. All were claimed before wrong49
# (api-drift or cuda-setup, family-evidence) and are labelled out-of-scope in the corpus.
CLAIMED = {
    "gh:neph1/FramePack#8": ("https://github.com/neph1/FramePack/issues/8", "framepack_cu126_torch26"),
    "gh:Akegarasu/lora-scripts#718": ("https://github.com/Akegarasu/lora-scripts/issues/718", "lora-scripts-1.10.0"),
    "gh:Akegarasu/lora-scripts#30": ("https://github.com/Akegarasu/lora-scripts/issues/30", "~/App/lora-scripts$"),
    "gh:jllllll/bitsandbytes-windows-webui#28": ("https://github.com/jllllll/bitsandbytes-windows-webui/issues/28",
                                                 "kohya_ss\\library\\train_util.py"),
    "gh:Thund3rPat/kohya_ss-linux#9": ("https://github.com/Thund3rPat/kohya_ss-linux/issues/9", "train_db.py"),
    "gh:bitsandbytes-foundation/bitsandbytes#367": ("https://github.com/bitsandbytes-foundation/bitsandbytes/issues/367",
                                                    "Kohya_ss-GUI-LoRA"),
    "gh:huggingface/finetrainers#81": ("https://github.com/huggingface/finetrainers/issues/81", "cogvideox-factory"),
    "gh:bmaltais/kohya_ss#2474": ("https://github.com/bmaltais/kohya_ss/issues/2474", "running training / 学習開始"),
}


@pytest.mark.parametrize("rid", sorted(CLAIMED))
def test_a_trainer_of_another_kind_of_model_is_not_answered(rid: str) -> None:
    record = record_of(rid)
    url, program_words = CLAIMED[rid]
    assert record["url"] == url and record["label"]["family"] == "out-of-scope"
    assert program_words in record["error"]
    diagnosis = _diagnosis(record["error"])
    assert diagnosis.answers == []
    assert any("outside kb's scope" in note for note in diagnosis.notes)


# The same errors without the program's lines: the stack's failures, answered as before.
NEAR = [
    ("Traceback (most recent call last):\n"
     '  File "/home/u/finetune/train.py", line 3, in <module>\n'
     "    from peft import LoraConfig\n"
     "ModuleNotFoundError: No module named 'peft'\n", "api-drift"),
    ("/home/u/venv/bin/python: Error while finding module specification for 'accelerate.commands.launch' "
     "(ModuleNotFoundError: No module named 'accelerate')\n", "api-drift"),
    ("Traceback (most recent call last):\n"
     '  File "/home/u/venv/lib/python3.10/site-packages/accelerate/commands/config/config_args.py", line 117, in '
     "from_yaml_file\n    return cls(**config_dict)\n"
     "TypeError: ClusterConfig.__init__() got an unexpected keyword argument 'command_file'\n", "api-drift"),
    ("Traceback (most recent call last):\n"
     '  File "/home/u/llm/train.py", line 126, in train\n'
     "    optimizer_class = bnb.optim.AdamW8bit\n"
     "AttributeError: module 'bitsandbytes' has no attribute 'optim'\n", "api-drift"),
]


@pytest.mark.parametrize(("text", "family"), NEAR, ids=["peft", "accelerate-launch", "cluster-config", "bnb-optim"])
def test_the_same_errors_in_a_users_own_run_keep_their_answer(text: str, family: str) -> None:
    assert _families(text)[:1] == [family]


@pytest.mark.parametrize("line", [
    "Saving model to /home/u/kohya_notes.txt",            # the word without its folder
    "Using train_utils.py from my repo",                  # not kohya's library/train_util
    "cd lora-scripts-for-llm-notes.md",                   # a file name, not the checkout's folder
    "framepacked tensors are stored in /tmp/x",           # another word
])
def test_near_lines_are_no_programs_lines(line: str) -> None:
    text = line + "\nModuleNotFoundError: No module named 'peft'\n"
    assert _families(text)[:1] == ["api-drift"]
    assert not any("outside kb's scope" in note for note in _diagnosis(text).notes)


# ---- "Some NCCL operations have failed or timed out": hang's and multi-gpu-launch's, picked by what torch printed with it

# tatsu-lab/stanford_alpaca#207 (https://github.com/tatsu-lab/stanford_alpaca/issues/207): the line, then the NCCL error
# that took the process down (a peer's InfiniBand completion failed); the report's lines as torch prints them (the issue
# shows them run together)
ALPACA_207 = """\
[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.
terminate called after throwing an instance of 'std::runtime_error'
what(): NCCL error: remote process exited or there was a network error, NCCL version 2.14.3
ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
Last error: NET/IB : Got completion from peer 11.214.147.122<39138> with error 12, opcode 0, len 0, vendor err 129
"""
# huggingface/text-generation-inference#1383 (https://github.com/huggingface/text-generation-inference/issues/1383, the
# corpus's record): the watchdog's timeout of an all-reduce printed before the line
TGI_1383 = "gh:huggingface/text-generation-inference#1383"
# EvolvingLMMs-Lab/open-r1-multimodal#20 (https://github.com/EvolvingLMMs-Lab/open-r1-multimodal/issues/20): the line alone
OPEN_R1_20 = ("[rank2]:[E220 01:25:08.728702337 ProcessGroupNCCL.cpp:681] [Rank 2] Some NCCL operations have failed or timed"
              " out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on"
              " corrupted/incomplete data.\n")


def _signatures(text: str) -> list[tuple[str, str]]:
    return [(a.match.entry.key if a.match.entry.kind == "family" else a.match.entry.family,  # type: ignore[union-attr]
             a.match.signature.name) for a in _diagnosis(text).answers]


def test_an_nccl_error_with_the_line_is_multi_gpu_launch() -> None:
    """Was hang (equal scores fell to the names): the process went down on NCCL's error, not on a timeout."""
    assert _signatures(ALPACA_207)[:2] == [("multi-gpu-launch", "nccl-operations-failed"),
                                           ("hang", "nccl-operations-timed-out")]


def test_the_watchdogs_timeout_with_the_line_is_hang() -> None:
    text = record_of(TGI_1383)["error"]
    assert "Watchdog caught collective operation timeout" in text
    found = _diagnosis(text).answers
    assert found[0].match.entry.key == "hang" and found[0].match.signature.name == "nccl-operations-timed-out"
    assert any("hint" in line and "Watchdog" in line for line in found[0].match.evidence)
    assert found[0].match.score > found[1].match.score


def test_the_line_alone_keeps_both_families_at_equal_scores() -> None:
    found = _diagnosis(OPEN_R1_20).answers
    assert [a.match.entry.key for a in found[:2]] == ["hang", "multi-gpu-launch"]
    assert found[0].match.score == found[1].match.score
