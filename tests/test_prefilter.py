"""The dev set read three more ways must give the same document (issue 26, R3 and the prefilter).

- without the prefilter (kb/diagnose/stream.py PREFILTER = False: every line parsed): a line that could
  start an error is never skipped, and a skipped line is kept as context exactly as a parsed one;
- with CR-only line ends (old Mac files, terminal captures): before, the whole input was one line and
  256 of 374 fixtures changed their answer;
- with CRLF line ends.
Each fixture goes through the real reader (kb/diagnose/input.py), as `kb diagnose FILE` reads it
(tests/devset_documents.py's ``document``, which gives the default reading the others are compared with). Each of
these changes only the reading: a fixture's document is built and compared where its read state (everything the
pipeline holds once the input is read, from which the rest computes the document) differs from the default
reading's, and for a share of the fixtures whatever their state (tests/devset_documents.py ``differing``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from devset_documents import FIXTURES, differing, document as _document
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.diagnose import stream


def _ends(data: bytes, end: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", end)


@pytest.fixture(scope="module")
def originals(devset_originals: dict[Path, str]) -> dict[Path, str]:
    return dict(devset_originals)  # (computed once per run, shared with tests/test_speed_paths.py: tests/conftest.py)


def test_the_dev_set_is_all_there() -> None:
    assert len(FIXTURES) >= 300


def test_answers_are_the_same_without_the_prefilter(originals: dict[Path, str], devset_read_states: dict[Path, str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "PREFILTER", False)
    checked, differ = differing(originals, devset_read_states, Path.read_bytes, share=0)
    assert checked == len(FIXTURES) and differ == []


def _cr_only(path: Path) -> bytes | None:
    """The fixture with CR-only line ends; None for one that holds a lone CR of its own (a progress bar): there a CR
    is part of a line."""
    data = path.read_bytes()
    return None if b"\r" in data.replace(b"\r\n", b"") else _ends(data, b"\r")


def test_cr_only_line_ends_give_the_same_answers(originals: dict[Path, str], devset_read_states: dict[Path, str]) -> None:
    """Fixtures that hold a lone CR of their own (a progress bar) are left out: there a CR is part of a line."""
    checked, differ = differing(originals, devset_read_states, _cr_only, share=1)
    assert checked >= 300 and differ == []


def test_crlf_line_ends_give_the_same_answers(originals: dict[Path, str], devset_read_states: dict[Path, str]) -> None:
    checked, differ = differing(originals, devset_read_states, lambda path: _ends(path.read_bytes(), b"\r\n"), share=2)
    assert checked == len(FIXTURES) and differ == []


def test_answers_are_the_same_with_the_presence_test_on_every_chunk(originals: dict[Path, str],
                                                                     devset_read_states: dict[Path, str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The dev set's inputs are shorter than PRESENCE_MIN_CHARS: run the rare-character test on them anyway."""
    monkeypatch.setattr(stream, "PRESENCE_MIN_CHARS", 0)
    checked, differ = differing(originals, devset_read_states, Path.read_bytes, share=3)
    assert checked == len(FIXTURES) and differ == []


@given(st.lists(st.sampled_from(["Error", "Traceback (x", "File \"a\"", "nproc", "_x_", "é", "a", "\n", " ", "T",
                                 "rror", "NCC", "NCCL", "(local_rank:", "Ex", "xception"]), max_size=60).map("".join),
       st.lists(st.sampled_from(["Error", "Traceback", "File ", "nproc", "NCCL", "(local_rank:", "xception", "é",
                                 "Exit", "T"]), min_size=1, max_size=6).map(tuple))
@settings(max_examples=500, deadline=None)
def test_the_presence_test_skips_only_searches_that_find_nothing(text: str, tokens: tuple[str, ...]) -> None:
    saved = stream.PRESENCE_MIN_CHARS
    try:
        stream.PRESENCE_MIN_CHARS = 0  # the rare-character test on every text
        with_test = stream.trigger_lines(text * 3, tokens)
        stream.PRESENCE_MIN_CHARS = 10**9  # never
        without = stream.trigger_lines(text * 3, tokens)
    finally:
        stream.PRESENCE_MIN_CHARS = saved
    assert with_test == without


@given(st.lists(st.sampled_from(["Error", "Traceback (x", "File \"a\"", "nproc", "_x_", "é", "a", "\n", " ", "T",
                                 "rror", "NCC", "NCCL", "(local_rank:", "Ex", "xception", "epoch", "-9"]),
                max_size=80).map("".join),
       st.lists(st.sampled_from(["Error", "Traceback", "File ", "nproc", "NCCL", "(local_rank:", "xception", "é",
                                 "Exit", "T", "-9", "137"]), min_size=1, max_size=6).map(tuple),
       st.sampled_from([1, 8, 2048]))
@settings(max_examples=500, deadline=None)
def test_the_candidate_lines_are_the_lines_that_hold_a_token(text: str, tokens: tuple[str, ...], spacing: int) -> None:
    """With the chunk's lines at hand, a token's candidate lines (its remainder in theirs) are checked one by one,
    or, past CANDIDATE_SPACING of them, the token is searched for in the text: the lines found are the same."""
    text = text * 5
    lines = text.split("\n")
    expected = [i for i, line in enumerate(lines) if any(token in line for token in tokens)]
    saved = stream.PRESENCE_MIN_CHARS, stream.CANDIDATE_SPACING
    try:
        stream.PRESENCE_MIN_CHARS, stream.CANDIDATE_SPACING = 0, spacing
        assert stream.trigger_lines(text, tokens, lines) == expected
        assert stream.trigger_lines(text, tokens) == expected  # (the reader's lines are another chunk's)
    finally:
        stream.PRESENCE_MIN_CHARS, stream.CANDIDATE_SPACING = saved


@pytest.mark.parametrize("text", [
    "cannot import name \u2018container_abcs\u2018 from \u2018torch._six\u2019\n",
    "setup done\ncannot import name \u2018AdamW\u2019 from \u2018transformers\u2019\n",
    "\u2018LoraConfig\u2019 object is not subscriptable\n",
])
def test_a_message_in_curly_quotes_is_read_with_the_prefilter_too(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """(turn 43: drift-63's CompletionFormer#28) the parser reads curly quotes as straight ones; the prefilter's search
    of the first lines for the signatures' literals ("cannot import name '") did not, and skipped the line."""
    data = text.encode()
    with_prefilter = _document(data)
    monkeypatch.setattr(stream, "PREFILTER", False)
    assert _document(data) == with_prefilter
    assert json.loads(with_prefilter)["errors"], "the line is read as an error"
