"""The one-screen answer (kb/render/diagnosis.py): its bounds hold for every input kb has, at any width."""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from answer_length import FIX_HEADERS, inputs  # noqa: E402
from devset_documents import taken  # noqa: E402

from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.diagnose.document import diagnosis_document  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402
from kb.render.diagnosis import MAX_LINES, format_diagnosis  # noqa: E402
from kb.render.text import physical_lines, wrap_block, wrap_line  # noqa: E402


@pytest.fixture(scope="module")
def documents(devset_text_documents: dict[Path, dict]) -> list[tuple[Path, dict]]:
    """(path, document) of each of benchmarks/answer_length.py's inputs: its text through diagnose_lines with the
    shipped knowledge (tests/devset_documents.py's text_document), computed once per run (tests/conftest.py)."""
    return [(path, taken(devset_text_documents, path)) for path in inputs()]


def _fix_row(text: str, width: int) -> int | None:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(FIX_HEADERS):
            return physical_lines(lines[:i], width) + 1
    return None


@pytest.mark.parametrize("width", [40, 80, 132])
def test_every_answer_fits_one_screen_with_the_fix_near_the_top(documents: list, width: int) -> None:
    counts = []
    for path, doc in documents:
        text = format_diagnosis(doc, width=width)
        rows = physical_lines(text.splitlines(), width)
        assert rows <= MAX_LINES, f"{path.name}: {rows} rows at {width} columns\n{text}"
        counts.append(rows)
        if doc["matches"]:
            fix = _fix_row(text, width)
            assert fix is not None and fix <= 12, f"{path.name}: the fix starts at row {fix}\n{text}"
    if width == 80:
        assert statistics.median(counts) <= 20


def test_the_whole_story_keeps_what_one_screen_leaves_out(documents: list) -> None:
    family = next(doc for _, doc in documents if doc["matches"] and doc["matches"][0]["kind"] == "family"
                  and not doc["matches"][0].get("drift") and len(doc["matches"][0]["triage"]) > 3)
    short, full = format_diagnosis(family), format_diagnosis(family, full=True)
    last_cause = family["matches"][0]["triage"][-1]["cause"]
    assert last_cause not in short and last_cause in full
    assert "generic fix:" in full and "evidence:" in full and "kb diagnose --all" in short


CODE_INDENT = " " * 6  # a fix's code row under its "fix" heading (2) and the fix's own indent (4)


def test_links_and_code_are_never_cut(documents: list) -> None:
    for _, doc in documents:
        if not doc["matches"]:
            continue
        m = doc["matches"][0]
        text = format_diagnosis(doc, width=40)
        assert m["docs"] in text  # whole, on a row of its own when the row is too narrow
        code_rows = [line.strip() for line in (m["fix"] or "").splitlines() if line.startswith("    ")]
        for row in code_rows:
            if row in format_diagnosis(doc, full=True):
                # the rows at a code row's indent (a prose row that ends in "import" is not a cut code row)
                shown = [line.strip() for line in text.splitlines() if line.startswith(CODE_INDENT)]
                assert row in shown or not any(row.startswith(s) and s != row for s in shown if s), row


def test_a_wrapped_line_keeps_every_word_and_hangs_under_its_text() -> None:
    line = "1. " + " ".join(f"word{i}" for i in range(40))
    rows = wrap_line(line, 30)
    assert all(len(r) <= 30 for r in rows)
    assert " ".join(r.strip() for r in rows) == line
    assert all(r.startswith("   ") for r in rows[1:])
    code = "prose\n        model = AutoModelForCausalLM.from_pretrained(name, dtype=torch.bfloat16, device_map='auto')"
    assert wrap_block(code, 40)[-1].strip().startswith("model = ") and len(wrap_block(code, 40)) == 2


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("Error: Traceback CUDA out of memory.\n File 'x.py', line 3 ab") + ["\n"]),
                    max_size=3000),
       width=st.integers(min_value=1, max_value=300))
def test_any_input_at_any_width_is_at_most_one_screen(text: str, width: int) -> None:
    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))
    out = format_diagnosis(doc, width=width)
    assert physical_lines(out.splitlines(), max(width, 40)) <= MAX_LINES
    assert not re.search(r"\n\n\n", out)


def test_an_oom_plan_row_shows_the_smallest_change_that_fits() -> None:
    """The planner's first advice may not fit; the screen shows the smallest change that does (kb/plan/quick.py)."""
    log = ("$ python train.py --model_name_or_path Qwen/Qwen2.5-7B-Instruct --per_device_train_batch_size 4 "
           "--max_seq_length 2048 --load_in_4bit --lora_r 16\n"
           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB. GPU 0 has a total capacity of "
           "14.74 GiB of which 892.12 MiB is free.\n")
    doc = diagnosis_document(diagnose_lines(log.splitlines(keepends=True), load_knowledge()))
    plan = next(m["plan"] for m in doc["matches"] if m.get("plan"))
    smallest = plan["smallest_change"]
    assert smallest["fits"] and smallest["peak_gib"] < 14.74
    screen = " ".join(format_diagnosis(doc, width=200).split())
    assert f"to fit: {smallest['change']}: {smallest['peak_gib']:.2f} GiB" in screen
