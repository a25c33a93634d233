"""Reports that are not fine-tuning stack failures stay unclaimed (issue #24: a wrong answer costs more than a silent
one), the turn-41 batch. corpus/reports-gh-unrelated-41.jsonl holds 106 real reports WITH error output gathered by broad
queries in software that looks near the stack (TensorFlow, JAX/XLA, MXNet, PaddlePaddle, ONNX Runtime, TensorRT,
llama.cpp and its Python package, ollama, vLLM, TGI, SD web UIs, ComfyUI, kohya, dreambooth trainers, Blender Cycles,
Unity ML-Agents, whisper apps on CTranslate2, conda's cudatoolkit, docker's GPU runtime), all out-of-scope. Its first
score claimed 5 (benchmarks/results/corpus-turn41-unrelated41-first-score.txt).

Three mechanisms, each data in tables/priors.toml:

- [other_code] ``message``: a message in a form only another program's code prints (CTranslate2's "CUDA failed with
  error <CUDA's message>", where torch says "CUDA error: ..."): the line is that program's output, so a signature or an
  [[error]] prior that matched in it does not answer (kb/diagnose/match.py ``other_software_record``, as for a
  TensorFlow record of an [other_code] path).
- [other_code] ``logger``: another program's log record (vLLM's "ERROR 07-09 11:28:31 [dump_input.py:69]", TGI's
  launcher, ollama's server): keyword rules do not read its words (a serving engine dumping its own configuration,
  ``trust_remote_code=True``, is no report of what failed); signatures still do (trl's GRPO runs vLLM).
- the package-install build keyword rule's ``excludes``: pip names the package whose build failed; when it is none the
  stack runs on (llama-cpp-python, whose name holds the stack's word "llama"), the build is another program's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kb.diagnose.match import other_software_record
from rules_support import priors
from unrelated_support import check_out_of_scope, claimed_only_known, records, top

REPO = Path(__file__).resolve().parent.parent
BATCH = REPO / "corpus" / "reports-gh-unrelated-41.jsonl"

# Still claimed, each for a reason the text cannot settle:
KNOWN_CLAIMED = {
    # torch's own ProcessGroupNCCL watchdog records ("[E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught collective
    # operation timeout ... Some NCCL operations have failed or timed out"): TGI's shards are torch.distributed ranks and
    # only the title names the launcher; a fine-tuning run's hang prints the same lines
    "gh:huggingface/text-generation-inference#1383": "family:hang",
    # "CUDA error: no kernel image is available for execution on the device", the title alone: torch's message word for
    # word (ollama's ggml prints it too), nothing says which program
    "gh:ollama/ollama#12408": "family:cuda-setup",
}


def _error(rid: str) -> str:
    return next(r["error"] for r in records(BATCH) if r["id"] == rid)


def test_batch_is_out_of_scope_with_error_output_and_its_first_score_kept() -> None:
    rows = records(BATCH)
    check_out_of_scope(rows, 106)
    assert len({r["id"] for r in rows}) == 106
    assert sum(r["first_score"]["grade"] == "wrong" for r in rows) == 5  # the first score, never rewritten


def test_batch_unclaimed_but_the_known() -> None:
    claimed = claimed_only_known(records(BATCH), KNOWN_CLAIMED)
    assert claimed == {k: v for k, v in KNOWN_CLAIMED.items() if k in claimed}


# --- [other_code] message: CTranslate2's form of a CUDA failure ---------------------------------------------------

def test_ctranslate2_cuda_failure_is_not_the_stacks_cuda_setup() -> None:
    """rishikanthc/Scriberr#83 (faster-whisper on CTranslate2): claimed cuda-setup at first score through the
    'driver-insufficient' signature, which matched inside CTranslate2's own wording."""
    text = _error("gh:rishikanthc/Scriberr#83")
    assert "CUDA failed with error" in text
    assert top(text) is None
    # torch's wording of the same failure is the stack's CUDA setup
    assert top(text.replace("CUDA failed with error ", "CUDA error: ")) == "family:cuda-setup"


@pytest.mark.parametrize(("line", "claimed"), [
    ("RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version", True),
    ("RuntimeError: CUDA failed with error unknown error", True),  # SYSTRAN/faster-whisper#708
    ("RuntimeError: CUDA failed with error out of memory", True),  # R3gm/SoniTranslate#88
    ("RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version", False),
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB", False),
])
def test_the_message_form_is_read_from_the_table(line: str, claimed: bool) -> None:
    assert (other_software_record(line, priors()) is not None) is claimed
    table = {**priors(), "other_code": {**priors()["other_code"], "message": ""}}
    assert other_software_record(line, table) is None  # the form is data: without it no line is other software's


# --- [other_code] logger: a serving engine's own log records --------------------------------------------------------

def test_vllm_config_dump_record_is_no_report_of_a_failure() -> None:
    """llm-d/llm-d-kv-cache#49: vLLM's ERROR record dumping its engine's config ("trust_remote_code=True") read as
    the model-unsupported keyword rule's words at first score."""
    text = _error("gh:llm-d/llm-d-kv-cache#49")
    assert top(text) is None
    # the same words outside the engine's record (the report's own line) are still read by the keyword rule
    own = re.sub(r"^ERROR \d\d-\d\d [\d:]{8} \[dump_input\.py:69\] ", "error: ", text)
    assert own != text
    assert top(own) == "family:model-unsupported"


def test_signatures_still_read_vllm_records() -> None:
    """trl's GRPO runs vLLM: a CUDA OOM in vLLM's record is the run's (the dev set's KAITO report)."""
    path = REPO / "tests" / "fixtures" / "diagnose" / "dev" / "h3b-oomfrag-kaito-976.txt"
    logger = re.compile(priors()["other_code"]["logger"])
    text = path.read_text(encoding="utf-8", errors="replace")
    assert any(logger.search(line) for line in text.splitlines())
    assert top(text) == "family:cuda-oom"


@pytest.mark.parametrize(("line", "engine"), [
    ("ERROR 07-09 11:28:31 [dump_input.py:69] Dumping input data for V1 LLM engine", True),  # vLLM (llm-d#49)
    ("ERROR 06-28 08:28:45 engine.py:400] Traceback (most recent call last):", True),  # older vLLM (vllm-ascend#1502)
    ("(APIServer pid=697224) ERROR 01-08 17:16:15 [serving_chat.py:1278]     raise output", True),  # LMCache#2306
    ("2024-03-06T17:53:31.149443Z ERROR text_generation_launcher: Shard 0 failed to start", True),  # TGI#1627
    ("2024-03-06T17:53:31.052444Z ERROR shard-manager: text_generation_launcher: Shard process was signaled", True),
    ('time=2024-12-29T12:42:24.304+08:00 level=DEBUG source=sched.go:360 msg="runner expired event received"', True),
    ("2月 21 08:55:16 GBITDeepSeek ollama[698750]: time=2025-02-21T08:55:16.213+08:00 level=INFO source=sched.go:507 "
     'msg="updated VRAM based on existing loaded models"', True),  # ollama#9247 through journalctl
    # the stack's own records are not another program's
    ("[2024-04-09 05:08:36,532] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1)", False),
    ("INFO:root:Start training with (gpu(0)) from pretrained model", False),
    ("2023-12-28T13:17:07.318704498Z [E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught collective operation "
     "timeout", False),
])
def test_engine_records_are_recognised_by_the_table(line: str, engine: bool) -> None:
    assert bool(re.compile(priors()["other_code"]["logger"]).search(line)) is engine


# --- pip names the package whose build failed ----------------------------------------------------------------------

@pytest.mark.parametrize("rid", ["gh:abetlen/llama-cpp-python#1947"])
def test_llama_cpp_python_build_is_not_the_stacks_install(rid: str) -> None:
    text = _error(rid)
    assert top(text) is None
    # the same pip output for a compiled extension of the stack is still package-install
    assert top(text.replace("llama-cpp-python", "flash-attn")) == "family:package-install"


def test_the_same_for_pips_newer_summary_and_a_dev_batch_report() -> None:
    """amirarsalan90/personal_llm_assistant#1 (gh-mix-13, claimed package-install before), and pip's newer summary."""
    text = next(r["error"] for r in records(REPO / "corpus" / "reports-gh-mix-13.jsonl")
                if r["id"] == "gh:amirarsalan90/personal_llm_assistant#1")
    assert top(text) is None
    newer = "ERROR: Failed to build installable wheels for some pyproject.toml based projects (llama-cpp-python)\n"
    assert top(newer) is None
    assert top(newer.replace("llama-cpp-python", "flash-attn")) == "family:package-install"
