"""The reader's remainders and its over-long line test (kb/diagnose/input.py), which the prefilter
(kb/diagnose/stream.py trigger_lines) trusts: a remainder the reader hands out with a chunk is exactly the one
the chunk's text gives, whatever the line ends, blocks or reads; a block said to hold no over-long line holds none."""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.diagnose import input as kb_input
from kb.diagnose.input import BLOCK_BYTES, REMAINDER_DELETE, LogReader, open_input, remainder_of

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_input_mmap import _generated  # noqa: E402


class _Trickle:
    """A stream that hands over at most ``step`` bytes per read (a pipe), without a descriptor (not mapped)."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.pos, self.step = data, 0, step

    def read1(self, size: int = -1) -> bytes:
        size = self.step if size < 0 else min(size, self.step)
        piece = self.data[self.pos:self.pos + size]
        self.pos += len(piece)
        return piece

    read = read1


def _checked(reader: LogReader) -> tuple[int, int]:
    """(chunks whose remainder the reader made, chunks); each such remainder is the text's."""
    made = total = 0
    for text, _lines in reader.chunks():
        total += 1
        found = remainder_of(text)
        if found is not None:
            made += 1
            assert found == text.encode("utf-8", "surrogatepass").translate(None, REMAINDER_DELETE)
    return made, total


def _utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _variants(seed: int) -> list[bytes]:
    data = _generated(seed)
    rng = random.Random(seed)
    crlf = data.replace(b"\n", b"\r\n")
    mixed = b"".join(line + (b"\r\n" if rng.random() < 0.5 else b"\n") for line in data.split(b"\n"))
    cr_only = data.replace(b"\n", b"\r")
    short = b"\n".join(line for line in data.split(b"\n") if len(line) < 1000 and _utf8(line))  # (remainders made)
    return [data, crlf, mixed, b"\xef\xbb\xbf" + data, cr_only, data.replace(b"x", b"\r\n"), short,
            short.replace(b"\n", b"\r\n")]


@pytest.mark.parametrize("seed", range(4))
def test_a_remainder_handed_out_is_the_chunks(tmp_path: Path, seed: int) -> None:
    made = 0
    for k, data in enumerate(_variants(seed)):
        path = tmp_path / f"log{k}.txt"
        path.write_bytes(data)
        mapped = open_input(str(path))
        for reader in (mapped, LogReader(_Trickle(data, 65536), "pipe"),  # type: ignore[arg-type]
                       LogReader(_Trickle(data, 7777), "pipe"),  # type: ignore[arg-type]
                       LogReader(io.BufferedReader(io.BytesIO(data)), "buffered")):  # type: ignore[arg-type]
            got, _total = _checked(reader)
            made += got
    assert made > 0  # (the reader made remainders: else the test checks nothing)


def test_a_training_log_gets_its_remainders_from_the_reader(tmp_path: Path) -> None:
    line = b"2025-11-21 10:00:01,123 - INFO - trainer - step 1 loss 2.0 epoch 0.1\r\n"
    data = line * (3 * BLOCK_BYTES // len(line))
    path = tmp_path / "train.log"
    path.write_bytes(data)
    made, total = _checked(open_input(str(path)))
    assert total >= 3 and made == total
    made, total = _checked(LogReader(_Trickle(data, 65536), "pipe"))  # type: ignore[arg-type]
    assert total >= 3 and made == total


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=300), min_size=1, max_size=40), st.integers(1, 400),
       st.integers(0, 50))
def test_no_line_is_longer_when_the_window_test_says_so(lengths: list[int], longest: int, tail: int) -> None:
    data = b"\n".join(b"a" * n for n in lengths)
    source = data + b"\n" * tail  # (the bytes after the data are not looked at)
    if kb_input._short_lines(source, len(data), longest):
        assert max(map(len, data.split(b"\n"))) <= longest
