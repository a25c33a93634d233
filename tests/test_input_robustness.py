"""Process and encoding edge cases of the input path (issue 26: R1, R2, C1, L1, N1).

Before: with standard output closed, --format json, kb env and kb plan ended in a traceback and text
mode exited 0 with the answer lost; a closed standard input was "an internal error"; UTF-16 without a
byte-order mark was called binary and UTF-32 got UTF-16's advice; over-long lines were "no line
breaks"; kb's own 64 KiB cut split a UTF-8 character and then blamed the input; a 5,000-digit --limit
or CUDA_VISIBLE_DEVICES index ended in a traceback; nvmlDeviceGetName raising UnicodeDecodeError ended
kb env and kb diagnose --env in a traceback.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kb.diagnose.input import BLOCK_BYTES, MAX_LINE_BYTES, LogReader, UnusableInput, _cut

REPO = Path(__file__).resolve().parent.parent
ERROR = b"RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"
HUGE = "9" * 5000


def kb(args: list[str], stdin: bytes | None = None, shell_redirect: str = "",
       env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """``python -m kb ARGS`` with ``shell_redirect`` (``>&-``, ``<&-``) applied by a shell."""
    command = " ".join([f"'{sys.executable}'", "-m", "kb", *(f"'{a}'" for a in args), shell_redirect])
    proc = subprocess.run(["/bin/sh", "-c", command], input=stdin, capture_output=True, cwd=REPO, timeout=120,
                          env={**os.environ, **(env or {})})
    assert b"Traceback (most recent call last)" not in proc.stderr, proc.stderr.decode()
    return proc


# --------------------------------------------------------------------------- closed streams


COMMANDS = [
    (["diagnose", "examples/dtype-double-vs-float.txt"], "kb diagnose"),
    (["diagnose", "examples/dtype-double-vs-float.txt", "--format", "json"], "kb diagnose"),
    (["env"], "kb env"),
    (["env", "--format", "json"], "kb env"),
    (["plan", "--list-models"], "kb plan"),
    (["plan", "--model", "qwen2.5-0.5b", "--format", "json"], "kb plan"),
    (["list"], "kb list"),
    (["list", "--format", "json"], "kb list"),
    (["show", "KB0001"], "kb show"),
    (["show", "KB0001", "--format", "json"], "kb show"),
    (["--version"], "kb"),
]


@pytest.mark.parametrize(("args", "prefix"), COMMANDS, ids=[" ".join(a) for a, _ in COMMANDS])
@pytest.mark.parametrize("redirect", [">&-", "1</dev/null"], ids=["closed", "read-only"])
def test_standard_output_that_cannot_be_written_exits_2_in_one_line(args: list[str], prefix: str,
                                                                    redirect: str) -> None:
    proc = kb(args, shell_redirect=redirect)
    assert proc.returncode == 2
    lines = proc.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{prefix}: cannot write the output"), lines


def test_closed_standard_input_is_said_plainly() -> None:
    proc = kb(["diagnose", "-"], shell_redirect="<&-")
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("kb diagnose: standard input is closed")
    assert "internal error" not in proc.stderr.decode()


# --------------------------------------------------------------------------- huge integers


@pytest.mark.parametrize("args", [["diagnose", "-", "--limit", HUGE], ["diagnose", "-", f"--limit={HUGE}"],
                                  ["env", "--nproc", HUGE]])
def test_a_huge_integer_option_is_a_usage_error(args: list[str]) -> None:
    proc = kb(args, stdin=ERROR)
    assert proc.returncode == 2
    assert "too large" in proc.stderr.decode() and len(proc.stderr) < 1000  # not echoed in full


def test_a_huge_cuda_visible_devices_index_is_out_of_range() -> None:
    from kb.env.report import resolve_visible

    out = resolve_visible(HUGE, [{"index": 0, "uuid": "GPU-a"}])
    assert out["visible_count"] == 0 and out["entries"][0]["status"] == "out-of-range"
    proc = kb(["env", "--format", "json"], env={"CUDA_VISIBLE_DEVICES": HUGE})
    assert proc.returncode == 0 and json.loads(proc.stdout)["cuda_visible_devices"]["set"]


# --------------------------------------------------------------------------- NVML


class BrokenNvml:
    """nvmlDeviceGetName raises UnicodeDecodeError (a name that is not UTF-8); other calls misbehave too."""

    class NVMLError(Exception):
        pass

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlSystemGetDriverVersion(self) -> str: return "570.86"
    def nvmlSystemGetCudaDriverVersion(self) -> int: return 12080
    def nvmlDeviceGetCount(self) -> int: return 2
    def nvmlDeviceGetHandleByIndex(self, i: int) -> int: return i
    def nvmlDeviceGetName(self, h: int) -> str: raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    def nvmlDeviceGetUUID(self, h: int) -> str: raise TypeError("an old binding")
    def nvmlDeviceGetMemoryInfo(self, h: int) -> SimpleNamespace:
        if h == 1:
            return SimpleNamespace(total=None, free=None, used=None)  # a value of the wrong shape
        return SimpleNamespace(total=16 * 2**30, free=2**30, used=15 * 2**30)
    def nvmlDeviceGetCudaComputeCapability(self, h: int) -> tuple[int, int]: return (7, 5)
    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[SimpleNamespace]: return []
    def nvmlDeviceGetMigMode(self, h: int) -> tuple[int, int]: raise self.NVMLError("Not Supported")


def test_any_nvml_failure_is_a_could_not_read_line(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from kb.cli import main
    from kb.env import report

    monkeypatch.setattr(report, "_import_pynvml", lambda: BrokenNvml())
    assert main(["env"]) == 0
    out = capsys.readouterr().out
    assert "GPU 0 name: could not read (UnicodeDecodeError" in out
    assert "GPU 0 UUID: could not read (TypeError: an old binding)" in out
    assert "GPU 1 memory total: could not read (NVML gave NoneType None)" in out  # the rest of GPU 1 is read
    assert "[1] ?  cc 7.5" in out
    assert main(["diagnose", str(REPO / "examples" / "dtype-double-vs-float.txt"), "--env"]) == 0


def test_a_binding_that_fails_to_import_or_start_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.env import report

    def broken() -> None:
        raise RuntimeError("libnvidia-ml.so: wrong ELF class")

    monkeypatch.setattr(report, "_import_pynvml", broken)
    assert "could not be imported: RuntimeError" in report.read_nvml().error
    nvml = BrokenNvml()
    nvml.nvmlInit = lambda: (_ for _ in ()).throw(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "x"))  # type: ignore[method-assign]
    monkeypatch.setattr(report, "_import_pynvml", lambda: nvml)
    assert report.read_nvml().error.startswith("NVML could not start: UnicodeDecodeError")


# --------------------------------------------------------------------------- encodings and cuts


def reader(data: bytes) -> LogReader:
    return LogReader(io.BufferedReader(io.BytesIO(data)), "input")  # type: ignore[arg-type]


@pytest.mark.parametrize(("data", "said"), [
    ("RuntimeError: boom\n".encode("utf-16-le") * 50, "UTF-16LE text without a byte-order mark"),
    ("RuntimeError: boom\n".encode("utf-16-be") * 50, "UTF-16BE text without a byte-order mark"),
    ("RuntimeError: boom\n".encode("utf-32") * 50, "is UTF-32 text"),  # with its BOM (FF FE 00 00)
    ("RuntimeError: boom\n".encode("utf-32-be") * 50, "UTF-32BE text without a byte-order mark"),
    ("RuntimeError: boom\n".encode("utf-32-le") * 50, "UTF-32LE text without a byte-order mark"),
    ("RuntimeError: boom\n".encode("utf-16") * 50, "is UTF-16 text"),
    (bytes(range(256)) * 64, "binary data"),
])
def test_each_encoding_is_named_for_what_it_is(data: bytes, said: str) -> None:
    with pytest.raises(UnusableInput, match=said):
        list(reader(data).chunks())


@pytest.mark.parametrize("char", ["é", "中", "😀"])
def test_kbs_own_cut_never_splits_a_character(char: str) -> None:
    for shift in range(4):
        raw = b"x" * shift + char.encode() * (MAX_LINE_BYTES // len(char.encode()) + 10)
        cut = _cut(raw)
        assert len(cut) <= MAX_LINE_BYTES and cut.decode("utf-8")  # decodes: no character split
        r = reader(raw + b"\n" + ERROR)
        list(r.chunks())
        assert r.stats.truncated_lines == 1 and r.stats.undecodable_lines == 0


def test_a_long_character_line_is_not_blamed_on_the_input() -> None:
    proc = kb(["diagnose", "-", "--format", "json"], stdin=b"RuntimeError: " + "é".encode() * 40_000 + b"\n" + ERROR)
    notes = json.loads(proc.stdout)["notes"]
    assert not any("not UTF-8" in n for n in notes) and any("over-long" in n for n in notes)


def test_over_long_lines_are_not_called_one_line() -> None:
    proc = kb(["diagnose", "-"], stdin=(b"a" * 70_000 + b"\n") * 3)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert "in 3 lines, each longer than 64 KiB" in err and "without line breaks" not in err


def test_cr_only_input_is_read_as_lines() -> None:
    data = (b"Traceback (most recent call last):\r  File \"t.py\", line 3, in <module>\r    x = a @ b\r"
            + ERROR.replace(b"\n", b"\r"))
    r = reader(data)
    lines = [line for _text, chunk in r.chunks() for line in chunk]
    assert r.stats.cr_only and lines[0] == "Traceback (most recent call last):" and len(lines) == 4


class Pipe:
    """A pipe that hands over the given pieces, one per read (as read1 on a pipe does)."""

    def __init__(self, *pieces: bytes) -> None:
        self.pieces = list(pieces)

    def read1(self, _size: int) -> bytes:
        return self.pieces.pop(0) if self.pieces else b""

    read = read1


def test_a_crlf_split_between_blocks_makes_no_extra_line() -> None:
    first = b"a" * 9000 + b"\rb\r"  # CR-only so far; the second piece starts with the LF of a CRLF
    r = LogReader(Pipe(first, b"\nnext\rlast\r"), "pipe")  # type: ignore[arg-type]
    lines = [line for _text, chunk in r.chunks() for line in chunk]
    assert r.stats.cr_only and lines == ["a" * 9000, "b", "next", "last"]


def test_one_early_cr_from_a_pipe_does_not_make_an_lf_log_cr_only() -> None:
    r = LogReader(Pipe(b"  1%|\r", b"  2%| done\n", ERROR), "pipe")  # type: ignore[arg-type]
    lines = [line for _text, chunk in r.chunks() for line in chunk]
    assert not r.stats.cr_only and lines[0] == "  1%|\r  2%| done"


def test_progress_bars_in_an_lf_log_stay_one_line() -> None:
    r = reader(b"  1%|\r  2%|\r  3%| done\n" + ERROR)
    lines = [line for _text, chunk in r.chunks() for line in chunk]
    assert not r.stats.cr_only and lines[0] == "  1%|\r  2%|\r  3%| done"


def test_an_over_long_line_at_a_block_end_keeps_its_place() -> None:
    """Before, the head of an over-long line that filled a block's end came out before the lines above it."""
    first = b"x\n" * 400_000 + b"a" * 200_000  # the block ends 200 KB into a 300 KB line
    lines = list(LogReader(Pipe(first, b"a" * 100_000 + b"\n" + ERROR), "pipe").lines())  # type: ignore[arg-type]
    assert len(lines) == 400_002
    assert lines[399_999] == "x" and lines[400_000].startswith("aaa") and lines[400_001] == ERROR.decode().strip()


def test_a_pipe_is_read_in_full_blocks_not_one_chunk_per_read() -> None:
    """read1 on a pipe hands over 64 KiB at most: the reader fills each block after the first, so a piped log
    is as many chunks as the same bytes read from a file (each chunk pays the per-chunk searches), same lines."""
    data = b"".join(b"step %d loss 2.0\r  more %d\n" % (i, i) for i in range(200_000)) + ERROR
    pieces = [data[i:i + 65536] for i in range(0, len(data), 65536)]
    piped = list(LogReader(Pipe(*pieces), "pipe").chunks())  # type: ignore[arg-type]
    whole = list(reader(data).chunks())
    assert [line for _t, chunk in piped for line in chunk] == [line for _t, chunk in whole for line in chunk]
    assert len(pieces) > 60 and len(piped) <= len(data) // BLOCK_BYTES + 2
