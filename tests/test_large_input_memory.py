"""(turn 43) `kb diagnose` run as the command on a regular file of LARGE_INPUT_BYTES or more tells glibc's malloc to keep
the memory it frees (kb/cli/__init__.py keep_freed_memory): each MB of the input is read, decoded and split into memory
the previous MB freed, instead of pages faulted in afresh. A shorter file, a pipe, or kb called in-process (a notebook's
or a test's process) is read as before."""

from __future__ import annotations

import gc
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kb.cli
import kb.cli.diagnose as cli_diagnose
from kb.cli import LARGE_INPUT_BYTES, keep_freed_memory, main, script
from kb.diagnose.input import file_size

ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"
GLIBC = sys.platform.startswith("linux") and (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    """script() on a one-block file leaves the collector off (its os._exit is stubbed here): on again afterwards."""
    yield
    kb.cli._paused.clear()
    gc.enable()


class FakeLibc:
    """What ctypes.CDLL(None) gives, recording mallopt's calls."""

    def __init__(self, calls: list[tuple[int, int]]) -> None:
        self.calls = calls

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return 1


@pytest.fixture
def mallopt_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    import ctypes

    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(ctypes, "CDLL", lambda name: FakeLibc(calls))
    return calls


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt: Linux with glibc only")
def test_told_only_for_the_command_and_a_large_file(mallopt_calls: list[tuple[int, int]],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert not keep_freed_memory(LARGE_INPUT_BYTES)  # in-process (not script()): this process is not kb's to tune
    assert mallopt_calls == []
    monkeypatch.setattr(kb.cli, "_command", [True])
    assert not keep_freed_memory(None)  # a pipe, a terminal
    assert not keep_freed_memory(LARGE_INPUT_BYTES - 1)
    assert mallopt_calls == []
    assert keep_freed_memory(LARGE_INPUT_BYTES)
    assert mallopt_calls == [(-3, kb.cli.MMAP_THRESHOLD_BYTES), (-1, kb.cli.TRIM_THRESHOLD_BYTES)]


def test_not_told_elsewhere(mallopt_calls: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kb.cli, "_command", [True])
    monkeypatch.setattr(sys, "platform", "darwin")
    assert not keep_freed_memory(LARGE_INPUT_BYTES)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(os, "confstr", lambda name: None)  # musl, or no such name
    assert not keep_freed_memory(LARGE_INPUT_BYTES)
    assert mallopt_calls == []


def _sizes_asked(argv: list[str], monkeypatch: pytest.MonkeyPatch, command: bool) -> list[tuple[int | None, bool]]:
    """The sizes run_diagnose hands keep_freed_memory, with whether the process was the command's then."""
    asked: list[tuple[int | None, bool]] = []
    monkeypatch.setattr(cli_diagnose, "keep_freed_memory", lambda size: asked.append((size, bool(kb.cli._command))))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    if command:
        monkeypatch.setattr(sys, "argv", ["kb", *argv])
        monkeypatch.setattr("os._exit", lambda code: None)
        script()
    else:
        main(argv)
    return asked


def test_run_diagnose_hands_the_file_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = tmp_path / "one.txt"
    one.write_text(ONE_LINE)
    assert _sizes_asked(["diagnose", str(one)], monkeypatch, command=True) == [(len(ONE_LINE), True)]
    assert kb.cli._command == []  # (script() clears it: a later in-process call is not the command's)
    assert _sizes_asked(["diagnose", str(one)], monkeypatch, command=False) == [(len(ONE_LINE), False)]
    with open(one, "rb") as stdin:  # `kb diagnose - < FILE`: the file's size too
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
        assert _sizes_asked(["diagnose", "-"], monkeypatch, command=False) == [(len(ONE_LINE), False)]


def test_file_size(tmp_path: Path) -> None:
    one = tmp_path / "one.txt"
    one.write_text(ONE_LINE)
    assert file_size(str(one)) == len(ONE_LINE)
    assert file_size(str(tmp_path)) is None  # a folder
    assert file_size(str(tmp_path / "missing.txt")) is None
    read, write = os.pipe()
    try:
        assert file_size(f"/dev/fd/{read}") is None  # a pipe
    finally:
        os.close(read)
        os.close(write)


def test_a_pipe_is_told_once_enough_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    read, write = os.pipe()
    os.write(write, ONE_LINE.encode() * 100)
    os.close(write)
    monkeypatch.setattr(cli_diagnose, "LARGE_INPUT_BYTES", 1000)
    with open(read, "rb") as stdin:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))
        # run_diagnose asks once with no size (a pipe), then the reader asks once 1000 bytes are in
        assert _sizes_asked(["diagnose", "-"], monkeypatch, command=False) == [(None, False), (1000, False)]


def test_reader_calls_after_bytes_once() -> None:
    from kb.diagnose.input import BLOCK_BYTES, LogReader

    line = b"INFO step 1 loss 2.0\n"
    data = line * (3 * BLOCK_BYTES // len(line))
    calls: list[int] = []
    reader = LogReader(io.BufferedReader(io.BytesIO(data)), "standard input")  # (no descriptor: read block by block)
    reader.after_bytes = (2 * BLOCK_BYTES, lambda: calls.append(reader.stats.bytes_read))
    chunks = 0
    for _text, _lines in reader.chunks():
        chunks += 1
        if not calls:
            assert reader.stats.bytes_read < 2 * BLOCK_BYTES
    assert len(calls) == 1 and 2 * BLOCK_BYTES <= calls[0] < 3 * BLOCK_BYTES
    assert reader.after_bytes is None and chunks >= 3
