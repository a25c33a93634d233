"""kb/knowledge/packed_cache.py: the one module for packed copies in the cache folder (the learned fallback's model,
the API history, its side tables, drift/'s parsed entries). Its rules: a copy is read only when it is this user's
regular file (not through a link), writable by no one else, no larger than its format allows, and its checksum holds;
it is written through mkstemp and renamed; a folder kb may not write to gets no copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kb.knowledge import fallback_pack, history_pack, packed_cache


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    return folder


def test_both_packed_forms_use_the_shared_module() -> None:
    for module in (fallback_pack, history_pack):
        assert not hasattr(module, "_pread")  # (the one pread is packed_cache's)
    assert fallback_pack.model_key(__file__) == packed_cache.file_key(__file__, fallback_pack.FORMAT)
    assert history_pack.history_key(__file__) == packed_cache.file_key(__file__, history_pack.FORMAT)


def test_a_key_names_the_real_file_its_size_and_mtime(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.write_bytes(b"x")
    link = tmp_path / "link"
    link.symlink_to(source)
    assert packed_cache.file_key(str(link), 1) == packed_cache.file_key(str(source), 1)
    first = packed_cache.file_key(str(source), 1)
    assert packed_cache.file_key(str(source), 2) != first  # (another format)
    source.write_bytes(b"xy")
    assert packed_cache.file_key(str(source), 1) != first  # (another size)
    assert packed_cache.file_key(str(tmp_path / "missing"), 1) is None


def test_a_prefixed_copy_is_read_only_when_every_check_holds(cache: Path, tmp_path: Path) -> None:
    where = packed_cache.cache_folder()
    assert where == str(cache) and (os.stat(where).st_mode & 0o777) == 0o700
    path = packed_cache.cache_file(where, "t", "key")
    packed_cache.write(path, packed_cache.prefixed(b"body"))
    assert (os.stat(path).st_mode & 0o777) == 0o600
    assert packed_cache.read_prefixed(path, 1 << 20) == b"body"
    assert packed_cache.read_prefixed(path, 11) is None  # (larger than its format allows: not read)
    data = bytearray(Path(path).read_bytes())
    data[-1] ^= 1
    Path(path).write_bytes(bytes(data))
    assert packed_cache.read_prefixed(path, 1 << 20) is None  # (its checksum fails)
    packed_cache.write(path, packed_cache.prefixed(b"body"))
    os.chmod(path, 0o622)
    assert packed_cache.read_prefixed(path, 1 << 20) is None  # (others may write it)
    os.chmod(path, 0o600)
    link = os.path.join(where, "t-link.bin")
    os.symlink(path, link)
    assert packed_cache.read_prefixed(link, 1 << 20) is None  # (a link is not followed)
    assert packed_cache.read_prefixed(path, 1 << 20) == b"body"


def test_a_marshal_copy_is_written_once_and_not_where_the_folder_is_read_only(
        cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "table.json"
    source.write_text("{}")
    reads = []

    def read() -> dict:
        reads.append(1)
        return {"a": [1, 2.5, None]}

    assert packed_cache.marshal_copy(str(source), 1, "t", 1 << 20, read) == {"a": [1, 2.5, None]}
    assert packed_cache.marshal_copy(str(source), 1, "t", 1 << 20, read) == {"a": [1, 2.5, None]}
    assert len(reads) == 1 and len(list(cache.glob("t-*.marshal"))) == 1
    assert packed_cache.marshal_copy(str(source), 2, "u", 1 << 20, lambda: {"b": 1}) == {"b": 1}
    monkeypatch.setattr(packed_cache, "writable", lambda where: False)
    assert packed_cache.marshal_copy(str(source), 3, "v", 1 << 20, lambda: {"c": 1}) == {"c": 1}
    assert not list(cache.glob("v-*.marshal"))  # (a read-only folder: nothing written)

