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
