"""Output and exit codes on hostile ground, and the signature cache when it is corrupt (issue 15).

Before: `kb list > /dev/full` and PYTHONIOENCODING=ascii ended in kb's traceback; whitespace-only
input exited 1 (docs: empty input exits 2); a flipped byte in the cache printed inside a case's
text, valid marshal with bad entries broke every run until the file was deleted, and a cache path
that is a directory left a .tmp file behind on every run.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from kb.knowledge.index import load_index

REPO = Path(__file__).resolve().parent.parent
DTYPE = b"RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


def kb(args: list[str], stdin: bytes | None = None, env: dict[str, str] | None = None,
       stdout: object = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run([sys.executable, "-m", "kb", *args], input=stdin, stdout=stdout, stderr=subprocess.PIPE,
                          cwd=REPO, env={**os.environ, **(env or {})}, timeout=120)
    assert b"Traceback (most recent call last)" not in proc.stderr, proc.stderr.decode()
    return proc


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["list"], ["diagnose", "-"], ["diagnose", "-", "--format", "json"]])
def test_full_standard_output_is_one_line_and_exit_2(args: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        proc = kb(args, stdin=DTYPE, stdout=full)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == f"kb {args[0]}: cannot write the output: No space left on device"


@pytest.mark.parametrize("args", [["diagnose", "-"], ["diagnose", "-", "--format", "json"], ["show", "KB0001"]])
def test_an_ascii_only_output_encoding_still_prints(args: list[str]) -> None:
    proc = kb(args, stdin=DTYPE, env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("ascii")  # nothing but ASCII reached the output
    if "--format" in args:
        assert json.loads(out)["matches"]
    else:
        assert "dtype" in out


@pytest.mark.parametrize("data", [b"   \n\t\n\n  ", b"\n", b"\r\n\r\n"])
def test_whitespace_only_input_is_empty_input(data: bytes) -> None:
    proc = kb(["diagnose", "-"], stdin=data)
    assert proc.returncode == 2
    assert "is empty" in proc.stderr.decode()


def test_a_few_latin1_bytes_are_read_with_a_note() -> None:
    """The decision (docs/diagnose.md): text that is mostly UTF-8 is read; undecodable lines get a note."""
    data = "RuntimeError: caf\xe9 expected mat1 and mat2 to have the same dtype, but got: double != float\n"
    proc = kb(["diagnose", "-", "--format", "json"], stdin=data.encode("latin-1") + DTYPE * 3)
    assert proc.returncode == 0
    assert any("not UTF-8" in n for n in json.loads(proc.stdout)["notes"])


def test_text_that_is_mostly_not_utf8_exits_2() -> None:
    proc = kb(["diagnose", "-"], stdin=("d\xe9j\xe0 vu \xe9t\xe9\n" * 20).encode("latin-1"))
    assert proc.returncode == 2
    assert "not UTF-8" in proc.stderr.decode()


# --------------------------------------------------------------------------- the signature cache


def cache_file(cache: Path) -> Path:
    files = sorted(cache.glob("signatures-*.marshal"))
    assert len(files) == 1, files
    return files[0]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    load_index()
    return folder


def titles(knowledge) -> list[str]:
    return sorted(c.title for c in knowledge.cases)


def same_content(path: Path, good: bytes) -> bool:
    """The file verifies (its CRC-32) and holds what the good one held (marshal's bytes may differ)."""
    data = path.read_bytes()
    return zlib.crc32(data[4:]) == int.from_bytes(data[:4], "big") and marshal.loads(data[4:]) == marshal.loads(good[4:])


def test_a_flipped_byte_is_caught_and_the_cache_rebuilt(cache: Path) -> None:
    path = cache_file(cache)
    good = path.read_bytes()
    expected = titles(load_index())
    for at in (good.find(b"double"), len(good) // 2, len(good) - 3):
        flipped = bytearray(good)
        flipped[at] ^= 0x20
        path.write_bytes(bytes(flipped))
        assert titles(load_index()) == expected
        assert same_content(path, good)  # rebuilt and written again


def test_valid_marshal_with_bad_entries_is_rebuilt(cache: Path) -> None:
    path = cache_file(cache)
    good = path.read_bytes()
    key = marshal.loads(good[4:])["key"]
    expected = titles(load_index())
    bad_shape = marshal.dumps({"key": key, "entries": {"cases": [[1, 2, 3]], "families": [], "meanings": {}}})
    bad_case = marshal.dumps({"key": key, "entries": {"cases": [["f", {"id": 7}, []]], "families": [], "meanings": {}}})
    for data in (bad_shape,  # no checksum (the format before it)
                 zlib.crc32(bad_shape).to_bytes(4, "big") + bad_shape,  # checksum right, entries of the wrong shape
                 zlib.crc32(bad_case).to_bytes(4, "big") + bad_case):  # right shape, but a case that does not build
        path.write_bytes(data)
        assert titles(load_index()) == expected
        assert same_content(path, good)


def test_a_cache_path_that_is_a_directory_leaves_nothing_behind(cache: Path) -> None:
    path = cache_file(cache)
    path.unlink()
    path.mkdir()
    for _ in range(3):
        assert load_index().cases
    assert [p.name for p in cache.iterdir()] == [path.name]


def test_a_cache_that_verifies_is_used(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check does not reject a good cache: a warm start never loads the knowledge files."""
    from kb.knowledge import index

    def no_build(*_args: object) -> None:
        raise AssertionError("the knowledge was loaded from its files, not from the cache")

    monkeypatch.setattr(index, "build_entries", no_build)
    assert load_index().cases
