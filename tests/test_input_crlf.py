"""CRLF input is read as exactly the lines of the same input with LF ends (issue 26), through a pipe (a CRLF
split between two reads included) and through a mapped file. Before, each line kept its CR: a blank line was
"\\r", not blank, and took one of the CONTEXT_LINES kept before an error, so the diagnosis of
tests/fixtures/diagnose/dev/json-lines-file-does-not-parse-open-assistant-2184.txt changed (tests/test_prefilter.py).
"""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.diagnose import input as kb_input
from kb.diagnose.input import BLOCK_BYTES, LogReader, open_input
from tests.test_input_robustness import Pipe  # a pipe handing over one piece per read


def _lines(reader: LogReader) -> list[str]:
    return [line for _text, chunk in reader.chunks() for line in chunk]


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:]) if b > a]


def test_crlf_lines_have_no_cr_and_blank_lines_stay_blank() -> None:
    data = b"a\r\n\r\n  b\r\nValueError: x\r\n"
    r = LogReader(io.BufferedReader(io.BytesIO(data)), "crlf")  # type: ignore[arg-type]
    assert _lines(r) == ["a", "", "  b", "ValueError: x"]
    assert not r.stats.cr_only and r.stats.bytes_read == len(data) and r.stats.lines == 4


def test_a_crlf_split_between_two_reads_of_an_lf_log_makes_no_cr() -> None:
    r = LogReader(Pipe(b"first\r\nsecond\r", b"\nthird\r", b"\r\n"), "pipe")  # type: ignore[arg-type]
    assert _lines(r) == ["first", "second", "third\r"]  # (third's own CR, before its CRLF, stays)
    assert r.stats.bytes_read == 23


def test_a_progress_bar_cr_at_the_end_of_a_read_stays_in_its_line() -> None:
    r = LogReader(Pipe(b"log\r\n  1%|\r", b"  2%| done\r\nValueError: x\r\n"), "pipe")  # type: ignore[arg-type]
    assert _lines(r) == ["log", "  1%|\r  2%| done", "ValueError: x"]


def test_a_cr_that_ends_the_input_stays() -> None:
    r = LogReader(Pipe(b"log\r\n", b"tail\r"), "pipe")  # type: ignore[arg-type]
    assert _lines(r) == ["log", "tail\r"] and r.stats.bytes_read == 10


@given(st.lists(st.sampled_from(["a", "Error: x", "  ", "\r", "\n", "é", "\r\r"]), max_size=40).map("".join),
       st.lists(st.integers(min_value=0, max_value=10_000), max_size=8))
@settings(max_examples=300, deadline=None)
def test_crlf_read_in_any_pieces_gives_the_lines_of_lf(body: str, cuts: list[int]) -> None:
    # (a LF first: the line ends are decided on it, not on a lone CR; no CR just before a LF: that is CRLF already)
    lf = ("start\n" + body.replace("\r\n", "\r.\n")).encode()
    crlf = lf.replace(b"\n", b"\r\n")
    expected = LogReader(Pipe(lf), "lf")  # type: ignore[arg-type]
    got = LogReader(Pipe(*_split(crlf, cuts)), "crlf")  # type: ignore[arg-type]
    assert _lines(got) == _lines(expected)
    assert got.stats.lines == expected.stats.lines and got.stats.bytes_read == len(crlf)
    assert got.stats.blank == expected.stats.blank


def test_a_mapped_crlf_file_reads_as_its_lf_form(tmp_path: Path) -> None:
    lf = b"".join(b"step %d loss 0.5\n\n  1/9\r  9/9 done\n" % k for k in range(BLOCK_BYTES // 20))
    lf += b"Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nValueError: x\n"
    crlf = lf.replace(b"\n", b"\r\n")
    (tmp_path / "lf.log").write_bytes(lf)
    (tmp_path / "crlf.log").write_bytes(crlf)
    mapped = open_input(str(tmp_path / "crlf.log"))
    assert kb_input._mapped(mapped.stream) is not None  # (more than a block: the file is mapped)
    expected = list(open_input(str(tmp_path / "lf.log")).lines())
    assert _lines(mapped) == expected and mapped.stats.bytes_read == len(crlf)
    assert list(LogReader(io.BufferedReader(io.BytesIO(crlf)), "pipe").lines()) == expected  # type: ignore[arg-type]
