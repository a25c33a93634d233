"""Bad input to `kb diagnose` gets a clear message and a documented exit code, never kb's own traceback.

Exit codes (kb/cli.py): 0 a case matched, 1 nothing matched, 2 unusable input or usage error.
Everything here runs the real CLI in a subprocess.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MATMUL = b"RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


def diagnose(path_or_dash: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "kb", "diagnose", path_or_dash], input=stdin, capture_output=True, cwd=REPO, timeout=60
    )
    out = subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())
    assert "Traceback (most recent call last)" not in out.stderr, out.stderr
    return out


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("empty.txt", b"", "is empty"),
        ("binary.bin", bytes(range(256)) * 64, "binary data"),
        ("nul.txt", b"\x00" * 10_000, "holds only NUL bytes (10,000)"),
        ("utf16.txt", "RuntimeError: boom\n".encode("utf-16"), "UTF-16"),
        ("latin1.txt", "caf\xe9 cr\xe8me br\xfbl\xe9e\n".encode("latin-1") * 50, "not UTF-8"),
        ("log.gz", b"\x1f\x8b\x08\x00" + b"\x00" * 100, "compressed"),
    ],
)
def test_unusable_input_exits_2_with_a_clear_message(tmp_path: Path, name: str, data: bytes, says: str) -> None:
    proc = diagnose(write(tmp_path, name, data))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.startswith("kb diagnose: ") and says in proc.stderr
    assert proc.stdout == ""


def test_missing_file_and_directory_exit_2(tmp_path: Path) -> None:
    missing = diagnose(str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    directory = diagnose(str(tmp_path))
    assert directory.returncode == 2 and "is a directory" in directory.stderr


def test_a_50_mb_single_line_is_refused_quickly(tmp_path: Path) -> None:
    path = write(tmp_path, "one-line.txt", b"a" * (50 * 1024 * 1024))
    start = time.monotonic()
    proc = diagnose(path)
    assert time.monotonic() - start < 20
    assert proc.returncode == 2 and "without line breaks" in proc.stderr


def test_stdin_empty_is_exit_2() -> None:
    proc = diagnose("-", stdin=b"")
    assert proc.returncode == 2 and "standard input is empty" in proc.stderr


def test_a_stray_nul_or_bad_byte_in_real_text_is_still_diagnosed(tmp_path: Path) -> None:
    data = b"some log line with a bad byte \xff\xfe here\nnul\x00 in a line\n" + MATMUL
    proc = diagnose(write(tmp_path, "mixed.txt", data))
    assert proc.returncode == 0 and "KB0001" in proc.stdout
    assert "not UTF-8" in proc.stdout  # the note says some lines were read with replacements


def test_utf8_bom_and_crlf_windows_files(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + MATMUL.replace(b"\n", b"\r\n")
    proc = diagnose(write(tmp_path, "bom.txt", data))
    assert proc.returncode == 0 and "KB0001" in proc.stdout


def test_a_long_line_holding_the_error_still_matches(tmp_path: Path) -> None:
    data = MATMUL.rstrip(b"\n") + b" " + b"x" * (200 * 1024) + b"\n"
    proc = diagnose(write(tmp_path, "long.txt", data))
    assert proc.returncode == 0 and "read only in part" in proc.stdout


def test_text_without_any_error_exits_1() -> None:
    proc = diagnose("-", stdin=b"epoch 1 loss 2.3\nepoch 2 loss 2.1\n")
    assert proc.returncode == 1 and "No error found in the input" in proc.stdout


def test_an_internal_error_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import kb.diagnose.diagnosis
    from kb.cli import main

    def broken(*_args: object) -> None:
        raise ValueError("hf_abcdefghijklmnopqrstuvwxyz123456 from the user's log")

    monkeypatch.setattr(kb.diagnose.diagnosis, "diagnose_reader", broken)
    code = main(["diagnose", write(tmp_path, "x.txt", MATMUL)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kb diagnose: internal error (ValueError)")
    assert "hf_abc" not in err and "Traceback" not in err
