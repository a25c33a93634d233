"""A log that starts with a run of NUL bytes is read from the text after the run (kb/diagnose/input.py, turn 49).

logrotate's ``copytruncate`` cuts a log while the training process keeps writing at its old offset: the file then
starts with a hole, read as NULs, and the process's next lines follow. Before, the first 8 KiB were judged alone and
such a log was "binary data, not error text" though a CUDA OOM traceback followed (audit49's finding).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kb.diagnose import input as kb_input

REPO = Path(__file__).resolve().parents[1]
OOM = (b"Traceback (most recent call last):\n"
       b'  File "train.py", line 10, in <module>\n'
       b"    trainer.train()\n"
       b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       b"14.74 GiB of which 1.20 GiB is free.\n")


def kb_diagnose(data: bytes, tmp_path: Path, through_pipe: bool) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    if through_pipe:
        return subprocess.run([sys.executable, "-m", "kb", "diagnose", "-"], input=data, capture_output=True, env=env,
                              cwd=REPO)
    log = tmp_path / "train.log"
    log.write_bytes(data)
    return subprocess.run([sys.executable, "-m", "kb", "diagnose", str(log)], capture_output=True, env=env, cwd=REPO)


@pytest.mark.parametrize("through_pipe", [False, True], ids=["file", "pipe"])
@pytest.mark.parametrize("nuls", [4096, 2 * 1024 * 1024 + 3], ids=["4KiB", "2MiB"])  # 2 MiB: a mapped file
def test_a_log_after_a_hole_of_nuls_is_diagnosed(nuls: int, through_pipe: bool, tmp_path: Path) -> None:
    out = kb_diagnose(b"\x00" * nuls + OOM, tmp_path, through_pipe)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(b"family cuda-oom"), out.stdout[:200]
    assert b"line 4:" in out.stdout  # the run holds no line break: the traceback's lines keep their numbers


def test_only_nuls_is_said_so(tmp_path: Path) -> None:
    out = kb_diagnose(b"\x00" * 5000, tmp_path, through_pipe=True)
    assert out.returncode == 2
    assert out.stderr.strip() == b"kb diagnose: standard input holds only NUL bytes (5,000), not error text"


def test_nuls_then_binary_data_is_still_binary(tmp_path: Path) -> None:
    out = kb_diagnose(b"\x00" * 4096 + bytes(range(256)) * 64, tmp_path, through_pipe=False)
    assert out.returncode == 2
    assert b"looks like binary data" in out.stderr


def test_a_run_longer_than_the_limit_stops_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run over NUL_RUN_LIMIT (/dev/zero) is not read to its end: the reader gives up at the limit."""
    import io

    monkeypatch.setattr(kb_input, "NUL_RUN_LIMIT", 1024 * 1024)
    stream = io.BufferedReader(io.BytesIO(b"\x00" * (4 * 1024 * 1024) + OOM))  # type: ignore[arg-type]
    reader = kb_input.LogReader(stream, "standard input")
    with pytest.raises(kb_input.UnusableInput, match="more than 1 MiB of NUL bytes"):
        next(reader.blocks())
    assert stream.tell() < 2 * 1024 * 1024


@pytest.mark.parametrize("encoding", ["utf-16-be", "utf-32-be"])
def test_wide_big_endian_text_is_not_taken_for_a_run(encoding: str, tmp_path: Path) -> None:
    """UTF-16BE and UTF-32BE text without a byte-order mark start with one to three NULs: fewer than a run."""
    out = kb_diagnose("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n".encode(encoding) * 4,
                      tmp_path, through_pipe=False)
    assert out.returncode == 2
    assert f"looks like {encoding.upper().replace('-BE', 'BE')} text".encode() in out.stderr, out.stderr
