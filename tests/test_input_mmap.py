"""A regular file is read at known offsets (kb/diagnose/input.py _Map: os.pread, mmap where there is none), a pipe a
block at a time: both must give
the same chunks and the same counts, whatever the lines (over-long ones across block ends, CR inside lines,
bytes that are not UTF-8, a byte-order mark), and standard input redirected from a file is mapped too."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from kb.diagnose import input as kb_input
from kb.diagnose.input import BLOCK_BYTES, LogReader, open_input

REPO = Path(__file__).resolve().parent.parent


def _read(reader: LogReader) -> tuple[list[tuple[str, list[str]]], dict[str, object]]:
    chunks = list(reader.chunks())
    return chunks, dict(vars(reader.stats))


def _generated(seed: int) -> bytes:
    """About 3 MB of lines of many lengths: short log lines, lines near and past 64 KiB, one past a block."""
    rng = random.Random(seed)
    parts: list[bytes] = []
    size = 0
    while size < 3 * BLOCK_BYTES:
        kind = rng.random()
        if kind < 0.9:
            line = b"step %d loss %.3f" % (rng.randrange(10**6), rng.random()) + b" x" * rng.randrange(40)
        elif kind < 0.95:
            line = b"a" * rng.choice([65535, 65536, 65537, 70000, 200000])
        elif kind < 0.97:
            line = b"b" * (BLOCK_BYTES + rng.randrange(5000))  # no line end in a whole block
        elif kind < 0.98:
            line = b"caf\xe9 not UTF-8 RuntimeError: x"
        elif kind < 0.99:
            line = b"  1/10 [00:01]\r  2/10 [00:02] ValueError: in a progress bar"
        else:
            line = "UserWarning: caf\u00e9 \u2014 \u4e2d\u6587".encode() * rng.randrange(1, 3000)
        parts.append(line)
        size += len(line) + 1
    return b"\n".join(parts) + (b"\n" if seed % 2 else b"")


@pytest.mark.parametrize("seed", range(6))
def test_a_mapped_file_reads_as_the_same_bytes_through_a_pipe(tmp_path: Path, seed: int,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    data = (b"\xef\xbb\xbf" if seed == 3 else b"") + _generated(seed)
    path = tmp_path / "log.txt"
    path.write_bytes(data)
    mapped_reader = open_input(str(path))
    assert kb_input._mapped(mapped_reader.stream) is not None  # the file is mapped
    mapped = _read(mapped_reader)
    piped = LogReader(io.BufferedReader(io.BytesIO(data)), str(path))  # type: ignore[arg-type]
    assert kb_input._mapped(piped.stream) is None  # (no descriptor: read a block at a time)
    assert mapped == _read(piped)
    monkeypatch.setattr(kb_input, "_mapped", lambda stream: None)  # the same file read as before mmap
    assert mapped == _read(open_input(str(path)))


def test_what_is_not_a_regular_file_of_more_than_a_block_is_not_mapped(tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_bytes(b"ValueError: x\n")
    with open(small, "rb") as handle:
        assert kb_input._mapped(handle) is None
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "rb") as handle:
            assert kb_input._mapped(handle) is None
    finally:
        os.close(write_end)
    big = tmp_path / "big.txt"
    big.write_bytes(b"line\n" * BLOCK_BYTES)
    with open(big, "rb") as handle:
        handle.read(10)  # already read from: its position is not the start
        assert kb_input._mapped(handle) is None


def test_standard_input_redirected_from_a_file_answers_as_the_file(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_bytes(b"step 1 loss 2.0\n" * 100_000 + b"Traceback (most recent call last):\n"
                    b'  File "t.py", line 1, in <module>\nRuntimeError: CUDA error: out of memory\n')
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "kb", "diagnose", "--format", "json"]
    by_path = subprocess.run([*argv, str(log)], capture_output=True, env=env, check=False)
    with open(log, "rb") as stdin:
        by_stdin = subprocess.run([*argv, "-"], stdin=stdin, capture_output=True, env=env, check=False)
    by_pipe = subprocess.run([*argv, "-"], input=log.read_bytes(), capture_output=True, env=env, check=False)
    assert by_path.returncode == by_stdin.returncode == by_pipe.returncode == 0
    assert by_path.stdout == by_stdin.stdout == by_pipe.stdout
    assert b"CUDA" in by_path.stdout
