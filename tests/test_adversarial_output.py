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
from pathlib import Path

import pytest

from kb.knowledge.index import load_index
from kb.knowledge.index_build import pack, unpack
from kb.knowledge.precompiled import checksum

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
    """The file verifies (the checksums of its head and of every piece) and holds what the good one held (marshal's
    bytes may differ)."""
    stored = unpack(path.read_bytes())
    return stored is not None and stored == unpack(good)


def head_only(value: object) -> bytes:
    """A cache file of a head alone, its checksum right (kb/knowledge/index.py's layout)."""
    head = marshal.dumps(value)
    return checksum(head).to_bytes(8, "big") + len(head).to_bytes(4, "big") + head


def test_a_flipped_byte_is_caught_and_the_cache_rebuilt(cache: Path) -> None:
    path = cache_file(cache)
    good = path.read_bytes()
    expected = titles(load_index())
    for at in (good.find(b"double"), len(good) // 2, len(good) - 3):
        flipped = bytearray(good)
        flipped[at] ^= 0x20
        path.write_bytes(bytes(flipped))
        knowledge = load_index()
        assert titles(knowledge) == expected
        # (a damaged piece is found when it is read: read them all, families' too)
        assert all(dict(e.meta) for e in (*knowledge.cases, *knowledge.families))
        assert same_content(path, good)  # rebuilt and written again


def test_valid_marshal_with_bad_entries_is_rebuilt(cache: Path) -> None:
    path = cache_file(cache)
    good = path.read_bytes()
    stored = unpack(good)
    assert stored is not None
    key = stored["key"]
    expected = titles(load_index())
    bad_shape = {"key": key, "entries": {"cases": [[1, 2, 3]], "families": [], "meanings": {}}}
    bad_refs = {"key": key, "entries": {"cases": [["f", {"id": 7}, [], b"", b""]], "families": [], "meanings": {},
                                        "leading": [], "tables": {}}}
    for data in (marshal.dumps(bad_shape),  # no checksum, no head length
                 good[:8] + (2**32 - 16).to_bytes(4, "big") + good[12:],  # a head length past the end: no 4 GB read
                 head_only(bad_shape),  # checksum right, entries of the wrong shape
                 head_only(bad_refs)):  # the parts in the head, not pieces
        path.write_bytes(data)
        assert titles(load_index()) == expected
        assert same_content(path, good)
    # Right shape, but an entry the knowledge does not have, whose piece is past the file's end: the head verifies,
    # the piece does not, and the rebuilt index has no such entry to take it from. It is never decoded: a
    # KnowledgeError (a ValueError: `kb diagnose` says it in one line), the cache is written afresh, and the next
    # load is whole.
    bad_case = {"key": key, "entries": {"cases": [["f", {"id": "KB7777"}, [], (10**6, 9, 0), (0, 2**40, 0), []]],
                                        "families": [], "meanings": {}, "leading": [], "literals": [], "screen": ["x", 1, []],
                                        "tables": {}}}
    path.write_bytes(head_only(bad_case))
    with pytest.raises(ValueError, match="changed while kb was reading it"):
        titles(load_index())
    assert same_content(path, good)
    assert titles(load_index()) == expected


def test_a_damaged_piece_is_caught_when_read_and_the_cache_rebuilt(cache: Path) -> None:
    """A piece (one entry's signatures or its other fields) is checked when it is read, after the head verified:
    one that fails its checksum, or verifies but does not decode, is never used; the index is rebuilt and written."""
    path = cache_file(cache)
    good = path.read_bytes()
    stored = unpack(good)
    assert stored is not None

    def read_all(knowledge) -> list:
        return [(dict(e.meta), [s.name for s in e.signatures]) for e in (*knowledge.cases, *knowledge.families)]

    expected = read_all(load_index())
    length = int.from_bytes(good[8:12], "big")
    for at in (12 + length + 1, len(good) - 2):  # the first piece (a case's) and the last (a family's)
        flipped = bytearray(good)
        flipped[at] ^= 0x01
        path.write_bytes(bytes(flipped))
        knowledge = load_index()  # the head verifies: the damage is not seen yet
        assert read_all(knowledge) == expected
        assert same_content(path, good)  # rebuilt and written again
    # A piece whose checksum holds but whose bytes are not an entry's (another entry's signatures as its fields).
    first = stored["entries"]["cases"][0]
    first[4] = first[3]
    planted = pack(stored["key"], stored["entries"])
    assert planted is not None
    path.write_bytes(planted)
    assert read_all(load_index()) == expected
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
