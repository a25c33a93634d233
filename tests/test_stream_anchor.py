"""The long-text search paths of kb/diagnose/stream.py find exactly what a plain search finds.

- trigger_lines on a long text looks for a token's remainder from its rarest character (_ends_from), falls back
  to the regex past ANCHOR_MISSES misses and then skips that character for a while (_COMMON): the lines found
  must be the lines that hold a token, whatever the guess, the miss budget or what earlier texts taught it;
- the message memo compares the lines after a repeated hit by _digits_zeroed (no fence search): it must agree
  with comparing by _shape for every remembered shape.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.diagnose import stream

PIECES = ["Error", "Traceback (x", "File \"a\"", "nproc", "_x_", "é", "a", "\n", " ", "T", "rror", "NCC", "NCCL",
          "(local_rank:", "Ex", "xception", "epoch", "-9", "pc", "p", "c", "INFO", "Fault", "Ful", "u", "lu",
          "ipython", "py", "Warning", "Wg", "\r", "F", "E", "l", "Cell In", "ll"]
TOKENS = ["Error", "Traceback", "File ", "nproc", "NCCL", "(local_rank:", "xception", "é", "Exit", "T", "-9",
          "137", "Fault", "Failure", "ipython", "Warning", "Timeout", "Cell In"]


@pytest.fixture(autouse=True)
def _long_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text takes the long-text path; what earlier tests taught the module is forgotten."""
    monkeypatch.setattr(stream, "PRESENCE_MIN_CHARS", 0)
    monkeypatch.setattr(stream, "LITERAL_REGEX_MIN_CHARS", 0)
    monkeypatch.setattr(stream, "_COMMON", {})
    monkeypatch.setattr(stream, "_CAPPED", {})


@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=80).map("".join), min_size=1, max_size=4),
       st.lists(st.sampled_from(TOKENS), min_size=1, max_size=8).map(tuple),
       st.sampled_from([0, 1, 3, 128]), st.sampled_from([1, 8, 2048]))
@settings(max_examples=400, deadline=None)
def test_the_anchored_search_finds_the_lines_that_hold_a_token(texts: list[str], tokens: tuple[str, ...],
                                                                misses: int, spacing: int) -> None:
    """Several texts in turn (what one teaches _COMMON and _CAPPED is used on the next), each searched twice."""
    saved = stream.ANCHOR_MISSES, stream.CANDIDATE_SPACING
    try:
        stream.ANCHOR_MISSES, stream.CANDIDATE_SPACING = misses, spacing
        for text in texts:
            text = text * 5
            lines = text.split("\n")
            expected = [i for i, line in enumerate(lines) if any(token in line for token in tokens)]
            assert stream.trigger_lines(text, tokens, lines) == expected
            assert stream.trigger_lines(text, tokens, lines) == expected
    finally:
        stream.ANCHOR_MISSES, stream.CANDIDATE_SPACING = saved


def test_a_common_character_is_learned_and_the_lines_stay_right() -> None:
    """A chunk where the token's rarest-looking character is everywhere: the search falls back to the regex, marks
    the character, and the next chunk (searched without it) gives the right lines too."""
    saved = stream.ANCHOR_MISSES
    try:
        stream.ANCHOR_MISSES = 4
        # "Fault" leaves "Ful": "F" and "l" come first in every line, "u" only later, and in every line.
        body = "".join(f"INFO loss {k} u u u\n" for k in range(50))
        for tail in ("a Fault here\n", "no fault\n"):
            text = body + tail + body
            lines = text.split("\n")
            expected = [i for i, line in enumerate(lines) if "Fault" in line]
            assert stream.trigger_lines(text, ("Fault",), lines) == expected
            assert "u" in stream._COMMON
    finally:
        stream.ANCHOR_MISSES = saved


@pytest.mark.parametrize("misses", [0, 1, 128])
def test_a_miss_next_to_the_token_does_not_hide_it(misses: int) -> None:
    """"lu F Fault" leaves "luFFul": "F" is the character found first latest, so the search starts at the first
    "F", which does not start "Ful"; the one right after it does (after a fallback from there, when misses is 0)."""
    saved = stream.ANCHOR_MISSES
    try:
        stream.ANCHOR_MISSES = misses
        text = "\n".join(["lu F Fault", "x", "lu F Fault", "lu F Faul"])
        assert stream.trigger_lines(text, ("Fault",), text.split("\n")) == [0, 2]
    finally:
        stream.ANCHOR_MISSES = saved


LINE = st.lists(st.sampled_from(["a", "1", "7", "```", "~~~", "'''", '"""', "`", "é", " ", "[rank1]: ", "x"]),
                max_size=8).map("".join)


@given(st.lists(LINE, min_size=1, max_size=4), st.lists(LINE, min_size=1, max_size=4))
@settings(max_examples=400, deadline=None)
def test_digits_zeroed_agrees_with_shape_on_remembered_shapes(kept: list[str], met: list[str]) -> None:
    shape = stream._shape(kept)
    if shape is None:
        return  # (never remembered)
    assert (stream._digits_zeroed(met) == shape) == (stream._shape(met) == shape)
    same_apart_from_digits = [line.replace("7", "3") for line in kept]
    assert stream._digits_zeroed(same_apart_from_digits) == shape


@pytest.mark.parametrize(("data", "held"), [(b"a\r\nb", True), (b"\r a \n", False), (b"\n\r", False), (b"", False),
                                            (b"x\ry\r\r\n", True), (b"\r" * 1000 + b"\n", True)])
def test_crlf_in_is_whether_the_bytes_hold_crlf(data: bytes, held: bool) -> None:
    """The reader's CRLF test (kb/diagnose/input.py _crlf_in, a regex in place of ``in``)."""
    from kb.diagnose.input import _crlf_in

    assert _crlf_in(data) is held
    assert (b"\r\n" in data) is held
