"""Two shortcuts of the long-text search in kb/diagnose/stream.py find exactly what a plain search finds.

- Tokens whose remainders share a character are searched for in one scan of the chunk's remainder
  (_search_together: c(?:S1(?<=P1cS1)|...)[^\\n]*, each line it gives checked for every token of the group). Which
  tokens go together depends on guessed costs; here grouping is forced (every lone search made to look dear), so
  every group the greedy choice can form is exercised.
- A token's remainder is searched for once per text for every scanner (_first_end), and not at all when it holds
  the remainder of a token the text's remainder does not hold ("prc" in "um_prc").

Either way the lines found must be the lines that hold a token, and the same as with both shortcuts off.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.diagnose import stream

PIECES = ["Error", "Fault", "Ful", "Fl", "File ", "u", "F", "l", "r", "rr", "rrr", ".errors.", "Interrupt", "Irr",
          "nproc", "num_processes", "prc", "um_", "ipython", "py", "p", "Timeout", "Tm", "a", " ", "\n", "\r", "é",
          "OOM killer", "OOM-killer", "kll", "(local_rank:", "(", "_"]
TOKENS = ["Error", "Fault", "Failure", "File ", "Interrupt", ".errors.", "nproc", "num_processes", "ipython",
          "Timeout", "OOM killer", "OOM-killer", "killed", "(local_rank:", "terminate called after", "é", "137"]


@pytest.fixture(autouse=True)
def _long_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text takes the long-text path; what earlier tests taught the module is forgotten."""
    monkeypatch.setattr(stream, "PRESENCE_MIN_CHARS", 0)
    monkeypatch.setattr(stream, "LITERAL_REGEX_MIN_CHARS", 0)
    monkeypatch.setattr(stream, "_COMMON", {})
    monkeypatch.setattr(stream, "_CAPPED", {})
    monkeypatch.setattr(stream, "_FREQ", {})
    monkeypatch.setattr(stream, "_PLANS", {})


def _expected(lines: list[str], tokens: tuple[str, ...]) -> list[int]:
    return [i for i, line in enumerate(lines) if any(token in line for token in tokens)]


@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=60).map("".join), min_size=1, max_size=3),
       st.lists(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=9).map(tuple), min_size=1, max_size=3),
       st.booleans(), st.sampled_from([1, 8, 2048]))
@settings(max_examples=400, deadline=None)
def test_tokens_searched_together_give_the_lines_that_hold_one(texts: list[str], token_sets: list[tuple[str, ...]],
                                                                forced: bool, spacing: int) -> None:
    """Several texts in turn, each searched by several scanners (token sets) in turn, as a chunk is."""
    saved = stream.ANCHOR_HIT_US, stream.SCAN_US_PER_CHAR, stream.CANDIDATE_SPACING
    stream._PLANS.clear()  # (a plan chosen under the other costs is not kept: _plan keeps one for FREQ_CHUNKS texts)
    try:
        if forced:  # (every lone search dear, a group scan free: the greedy choice groups what it can)
            stream.ANCHOR_HIT_US, stream.SCAN_US_PER_CHAR = 1e6, 0.0
        stream.CANDIDATE_SPACING = spacing
        for text in texts:
            text = text * 4
            lines = text.split("\n")
            for tokens in token_sets:
                assert stream.trigger_lines(text, tokens, lines) == _expected(lines, tokens)
    finally:
        stream.ANCHOR_HIT_US, stream.SCAN_US_PER_CHAR, stream.CANDIDATE_SPACING = saved


def test_a_group_found_in_one_scan_and_checked_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """"Fault", "Failure" and "Interrupt" share "u" in their remainders ("Ful", "Flur", "Irrup"): one scan finds the
    lines where one of them may be; a line holding "Fu l" (remainder "Ful") but not "Fault" is not taken."""
    monkeypatch.setattr(stream, "ANCHOR_HIT_US", 1e6)
    scans: list[tuple[str, tuple[str, ...]]] = []
    real = stream._group_search

    def counted(char: str, rests: tuple[str, ...]):  # type: ignore[no-untyped-def]
        scans.append((char, rests))
        return real(char, rests)

    monkeypatch.setattr(stream, "_group_search", counted)
    lines = ["INFO step 1", "Fau lt", "a Failure here", "Fuel", "x Interrupt", "segmentation Fault", "F u l"] * 3
    text = "\n".join(lines)
    tokens = ("Fault", "Failure", "Interrupt")
    assert stream.trigger_lines(text, tokens, lines) == _expected(lines, tokens)
    assert len(scans) == 1 and set(scans[0][1]) == {"Ful", "Flur", "Irrup"}


def test_a_remainder_is_searched_once_per_text_and_not_when_a_part_is_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    """"nproc" leaves "prc", "num_processes" leaves "um_prc": with "prc" not in the text, "um_prc" is not searched
    for; a second scanner asking for "nproc" in the same text does not search again."""
    monkeypatch.setattr(stream, "GROUPED", False)
    searched: list[str] = []
    real = stream._ends_from

    def counted(remainder: str, rest: str, start: int, limit: int) -> list[int]:
        searched.append(rest)
        return real(remainder, rest, start, limit)

    monkeypatch.setattr(stream, "_ends_from", counted)
    lines = ["step 1 loss 0.5 (u m)", "pretrained model loaded", "epoch 2"] * 4
    text = "\n".join(lines)
    assert stream.trigger_lines(text, ("nproc", "num_processes"), lines) == []
    assert stream.trigger_lines(text, ("nproc",), lines) == []
    assert searched == ["prc"]
    lines[5] = "world size from nproc_per_node=2 and num_processes 2"
    text = "\n".join(lines)
    assert stream.trigger_lines(text, ("nproc", "num_processes"), lines) == [5]


@pytest.mark.parametrize("grouped", [True, False])
def test_the_shortcuts_leave_the_lines_found_unchanged(monkeypatch: pytest.MonkeyPatch, grouped: bool) -> None:
    """A training log's chunk, searched for the parser's and the environment's words, with and without grouping."""
    from kb.diagnose.environment import _ENV_TOKENS
    from kb.diagnose.parser import STRUCTURAL_TOKENS

    monkeypatch.setattr(stream, "GROUPED", grouped)
    monkeypatch.setattr(stream, "ANCHOR_MISSES", 4)
    block = []
    for step in range(300):
        block.append(f"[rank{step % 4}]: {step:>5}/1000 [01:00<9:59:00, 2.83it/s]\r{step + 1:>5}/1000 loss=2.{step % 97:02d}")
        block.append(f"2025-11-21 10:00:00,123 - INFO - trainer - step {step} grad_norm 1.4 learning_rate 2e-05")
        if step % 50 == 0:
            block.append("/usr/lib/python3.11/site-packages/torch/utils/checkpoint.py:90: UserWarning: None of the "
                         "inputs have requires_grad=True")
        if step == 123:
            block.append("ValueError: could not convert string to float: 'n/a'")
    for tokens in (STRUCTURAL_TOKENS, _ENV_TOKENS):
        for _ in range(3):  # (what one chunk teaches the module is used on the next)
            text = "\n".join(block)
            assert stream.trigger_lines(text, tokens, block) == _expected(block, tokens)
