"""What turn 48's mix48 (issue #24) changed after gh-mix-21's first score (benchmarks/results/corpus-turn48-mix21-
first-score.txt); benchmarks/results/corpus-turn48-mix21-rules.txt says why. Each test quotes the public report its text
comes from and the near forms that must keep their answer. The learned fallback is left out: these tests look at what
the rules answer."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from rules_support import families, top

REPO = Path(__file__).resolve().parent.parent

# ---- 1. accelerate's refusal of P2P/IB on RTX 4000 cards is multi-gpu-launch's alone (families/hang.md) -----------------

RTX_MESSAGE = ("Using RTX 4000 series doesn't support faster communication broadband via P2P or IB. Please set "
               "`NCCL_P2P_DISABLE=\"1\"` and `NCCL_IB_DISABLE=\"1\" or use `accelerate launch` which will do this "
               "automatically.\n")


@pytest.mark.parametrize("text", [
    "NotImplementedError: " + RTX_MESSAGE,  # McGill-NLP/llm2vec#84, with accelerate's raising frame
    "Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/accelerate/state.py\", line 217, in"
    " __init__\n    raise NotImplementedError(\nNotImplementedError: " + RTX_MESSAGE,
])
def test_accelerates_rtx4000_refusal_is_multi_gpu_launch(text: str) -> None:
    """Both families held the wording; equal scores fell to the names and answered hang (raised at set-up, it is no
    hang)."""
    assert top(text) == ("multi-gpu-launch", "family-evidence")
    assert "hang" not in families(text)


# ---- 2. an image-generation program's run: its models' computation errors are not the stack's ([program]) -------------

# sipie800/ComfyUI-PuLID-Flux-Enhanced#68: ComfyUI's log, its exception banner, a traceback cut in ComfyUI's executor
PULID = """\
model weight dtype torch.bfloat16, manual cast: torch.float16
model_type FLUX
Requested to load Flux
!!! Exception during processing !!! expected scalar type Half but found BFloat16
Traceback (most recent call last):
  File "D:\\comfyui\\ComfyUI_windows_portable\\ComfyUI\\execution.py", line 328, in execute
    output_data, output_ui, has_subgraph = get_output_data(obj, input_data_all, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb)
"""


def test_a_dtype_error_in_comfyuis_log_is_not_claimed() -> None:
    """Was answered dtype-mismatch (family-evidence) from the banner's message alone."""
    assert families(PULID) == []


def test_the_same_error_without_the_programs_lines_stays_dtype_mismatch() -> None:
    assert top("RuntimeError: expected scalar type Half but found BFloat16\n") == ("dtype-mismatch", "family-evidence")


def test_the_stacks_own_frames_keep_the_answer_under_comfyui() -> None:
    """A transformers model raising under a ComfyUI node is the stack's (dev set: filliptm/ComfyUI_FL-CosyVoice3#6, a
    Qwen2 model's dtype error, its frames and its message): with ComfyUI's banner line before the traceback, the
    deciding frame (transformers/models/qwen2/) still decides."""
    fixture = (REPO / "tests/fixtures/diagnose/dev/half-weights-fp32-inputs-no-autocast-fl-cosyvoice3-6.txt").read_text()
    lines = fixture.splitlines()
    frames = [n for n, line in enumerate(lines) if 'modeling_qwen2.py", line 220' in line]
    assert frames
    stack = "\n".join(lines[frames[0]:frames[0] + 2] + [
        '  File "C:\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\torch\\nn\\modules\\linear.py",'
        ' line 125, in forward', "    return F.linear(input, self.weight, self.bias)"])
    text = ("Traceback (most recent call last):\n" + stack +
            "\nRuntimeError: mat1 and mat2 must have the same dtype, but got Float and BFloat16\n")
    before = top(text)
    assert before is not None and before[0] == "dtype-mismatch"
    assert top("!!! Exception during processing !!! mat1 and mat2 must have the same dtype\n" + text) == before


def test_an_import_error_of_the_stack_under_comfyui_stays_api_drift() -> None:
    """The stack's API used by a ComfyUI node (dev set: kijai/ComfyUI-Florence2#169, ComfyUI's banner in it)."""
    text = (REPO / "tests/fixtures/diagnose/dev/drift-69-ComfyUI-Florence2-169.txt").read_text()
    assert re.search(r"(?m)^!!! Exception during processing", text)
    assert families(text)[:1] == ["api-drift"]


def _program_lines() -> list[re.Pattern[str]]:
    table = tomllib.loads((REPO / "tables/priors.toml").read_text(encoding="utf-8"))
    return [re.compile(rule["line"]) for rule in table["program_line"]]


def test_no_program_line_occurs_in_a_report_of_kbs_families() -> None:
    """The lines are other programs' own: none is in the error output of a corpus report labelled with one of kb's
    families (corpus/*.jsonl, not the sealed batches)."""
    lines = _program_lines()
    special = {"out-of-scope", "unknown-family"}
    hits = []
    for path in sorted((REPO / "corpus").glob("reports-*.jsonl")):
        for row in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(row)
            if record["label"]["family"] in special:
                continue
            for line in record["error"].splitlines():
                if any(rx.search(line[:500].strip()) for rx in lines):
                    hits.append(record["id"])
    assert hits == []


def test_program_table_names_families_kb_knows() -> None:
    table = tomllib.loads((REPO / "tables/priors.toml").read_text(encoding="utf-8"))
    known = {p.stem for p in (REPO / "families").glob("*.md")}
    assert set(table["program"]["families"]) <= known
    assert not {"api-drift", "package-install", "cuda-setup", "checkpoint-io"} & set(table["program"]["families"])
