"""Property-based tests: the parser and diagnose never raise and their output stays bounded."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.knowledge.registry import load_knowledge
from kb.diagnose.textclean import clean_line
from kb.diagnose.patterns import CONTEXT_LINES, MAX_FRAMES, MAX_MESSAGE_CHARS
from kb.diagnose.stream import parse

FRAGMENTS = [
    "Traceback (most recent call last):",
    "Original Traceback (most recent call last):",
    '  File "/w/a.py", line 3, in f',
    '  File "C:\\Users\\x\\a.py", line 9, in <module>',
    "    x = torch.matmul(a, b)",
    "    ^^^^^^^^",
    "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.90 GiB. GPU 0 has a total capacity of 14.74 GiB",
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
    "Exception raised from foo at bar.cpp:1 (most recent call first):",
    "frame #0: c10::Error::Error()",
    "[rank1]: ",
    "[rank0]:",
    "> ",
    "```",
    "\x1b[31m",
    "NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
    "x.cu:1: f: block: [1,0,0], thread: [1,0,0] Assertion `a < b` failed.",
    "TypeError                                 Traceback (most recent call last)",
    "----> 3 trainer = SFTTrainer(",
    "Cell In[1], line 3",
    "ChildFailedError: ",
    "\r",
    "\x00",
    "╭──── Traceback (most recent call last) ────╮",
    "│ /w/a.py:3 in f │",
    "│ ❱ 3 │ x = 1 │",
    "╰────╯",
    "",
]

line_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40)), max_size=6).map("".join)
documents = st.lists(line_text, max_size=40)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_parse_never_raises_and_output_is_bounded(lines: list[str]) -> None:
    raw = [line + "\n" for line in lines]
    found = list(parse(raw))
    assert len(found) <= 4 * len(raw) + 1
    longest = max((len(x) for x in raw), default=0)
    for error in found:
        assert len(error.frames) <= MAX_FRAMES
        assert len(error.message) <= MAX_MESSAGE_CHARS + longest
        assert len(error.context) <= CONTEXT_LINES
        assert 0 <= error.line_no <= len(raw)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_clean_line_never_raises_and_never_grows(text: str) -> None:
    line, rank = clean_line(text)
    assert len(line) <= len(text)
    assert rank is None or rank.isdigit()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_diagnose_document_never_raises(lines: list[str]) -> None:
    doc = diagnosis_document(diagnose_lines([line + "\n" for line in lines], load_knowledge()))
    assert isinstance(doc["matches"], list) and doc["schema_version"] == 2
    scores = [m["score"] for m in doc["matches"]]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)


def test_many_frames_are_capped() -> None:
    lines = ["Traceback (most recent call last):\n"] + [f'  File "/w/a.py", line {i}, in f\n    f()\n' for i in range(500)]
    lines.append("RecursionError: maximum recursion depth exceeded\n")
    [error] = parse("".join(lines).splitlines(keepends=True))
    assert len(error.frames) == MAX_FRAMES and error.frames[-1].line == 499
