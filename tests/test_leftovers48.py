"""Review leftovers of turn 47 (benchmarks/results/review-turn47.txt, "Seen and left alone"), fixed in turn 48.

- `kb plan --gpu-gib 1e-300` was planned ("DOES NOT FIT" on a 1e-300 GiB card): a GPU's memory is bounded below as
  every other number is, a usage error (exit 2, one line).
- kb/apidrift/agreement.py read every distribution's METADATA as UTF-8: one package whose METADATA is Latin-1 ended
  the agreement check in a UnicodeDecodeError (the class review47 closed in kb env, kb plan and kb reproduce).
- kb/knowledge/history_pack.py's cached_history and fallback_pack.py's cached_model each carried the cache look-up
  (key, folder, file, read, writable): packed_cache.look_up is that look-up once, its trust checks unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.knowledge import fallback_pack, history_pack, packed_cache



# ---- kb plan --gpu-gib: bounded below


def _plan(*args: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from kb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["plan", "--model", "qwen2.5-0.5b", *args])
        except SystemExit as stop:
            code = stop.code  # type: ignore[assignment]
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("gib", ["1e-300", "5e-324", "0.1", "1e-9", "0.0001"])
def test_a_gpu_smaller_than_any_gpu_is_a_usage_error(gib: str) -> None:
    code, out, err = _plan("--gpu-gib", gib)
    assert code == 2 and not out, (code, out)
    assert err.count("\n") == 1 and "--gpu-gib must be at least 0.125" in err and "Traceback" not in err, err


@given(st.floats(min_value=0.0, max_value=0.124, exclude_min=False).map(repr))
@settings(max_examples=15, deadline=None)
def test_any_gpu_size_below_the_bound_is_a_usage_error(gib: str) -> None:
    code, out, err = _plan("--gpu-gib", gib)
    assert code == 2 and not out and err.count("\n") == 1, (gib, code, err)


def test_the_smallest_gpu_is_planned_and_the_bound_is_in_the_spec_too() -> None:
    code, out, _err = _plan("--gpu-gib", "0.125")
    assert code == 1 and "kb plan: qwen2.5-0.5b" in out  # planned: it does not fit
    from kb.plan.spec import RunSpec, SpecError

    with pytest.raises(SpecError, match="at least 0.125"):
        RunSpec().with_(gpu_gib=(1e-300,)).check()  # (a --from file or a caller's spec: the same bound)


# ---- kb/apidrift/agreement.py beside a package whose METADATA is not UTF-8


def test_the_agreement_check_reads_past_a_metadata_not_in_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("packaging")
    from kb.apidrift import agreement

    site = tmp_path / "site"
    for name, version, requires in (("someones_tool", "1.0", "peft>=0.99"), ("otherones_tool", "2.0", "peft>=0.99")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        body = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nRequires-Dist: {requires}\n".encode()
        # the first is Latin-1 (an old setuptools writing an author's name in the machine's code page)
        (info / "METADATA").write_bytes(body + (b"Author: J\xfcrgen\n" if name == "someones_tool" else b""))
    monkeypatch.syspath_prepend(str(site))
    import importlib

    importlib.invalidate_caches()
    assert agreement.installed_version("someones_tool") is None  # was UnicodeDecodeError
    assert agreement.installed_version("otherones_tool") == "2.0"
    # was UnicodeDecodeError; the readable dependent that rejects peft 0.9 is still found
    assert "otherones-tool" in agreement.broken_dependents([("peft", "0.9")])


# ---- packed_cache.look_up: the one look-up of a packed copy


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    return folder


def _read(cache_path: str, key: str) -> bytes | None:
    body = packed_cache.read_prefixed(cache_path, 1 << 20)
    return body if body is not None and body.startswith(key.encode()) else None


def test_look_up_finds_a_trusted_copy_and_says_where_to_write_one(cache: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "table.json"
    source.write_text("{}")
    found, key, where = packed_cache.look_up(str(source), 7, "t", _read)
    assert found is None and key == packed_cache.file_key(str(source), 7)
    assert where is not None and Path(where).parent == cache and Path(where).name.startswith("t-")
    packed_cache.write(where, packed_cache.prefixed(key.encode() + b"|body"))
    assert packed_cache.look_up(str(source), 7, "t", _read) == (key.encode() + b"|body", None, None)
    os.chmod(where, 0o622)  # others may write it: not read, and a new one is to be written
    assert packed_cache.look_up(str(source), 7, "t", _read) == (None, key, where)
    os.chmod(where, 0o600)
    monkeypatch.setattr(packed_cache, "writable", lambda folder: False)
    assert packed_cache.look_up(str(source), 8, "t", _read) == (None, None, None)  # (read-only: nothing to write)
    assert packed_cache.look_up(str(source), 7, "t", _read)[0] is not None  # (but a copy there is read)
    assert packed_cache.look_up(str(tmp_path / "missing"), 7, "t", _read) == (None, None, None)


def test_look_up_uses_no_folder_others_may_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    monkeypatch.setenv("KB_CACHE_DIR", str(folder))
    source = tmp_path / "table.json"
    source.write_text("{}")
    calls = []
    assert packed_cache.look_up(str(source), 7, "t", lambda c, k: calls.append(c)) == (None, None, None)
    assert not calls  # (nothing in it was even opened)


def test_the_fallback_model_and_the_history_use_the_one_look_up(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    real = packed_cache.look_up

    def spy(path: str, fmt: int, stem: str, read, suffix: str = ".bin"):  # type: ignore[no-untyped-def]
        seen.append((stem, fmt))
        return real(path, fmt, stem, read, suffix)

    monkeypatch.setattr(packed_cache, "look_up", spy)
    from kb.knowledge.tables import FALLBACK_MODEL, table_path

    assert isinstance(fallback_pack.cached_model(table_path(FALLBACK_MODEL)), fallback_pack.PackedModel)  # (packs)
    assert isinstance(fallback_pack.cached_model(table_path(FALLBACK_MODEL)), fallback_pack.PackedModel)  # (reads)
    from kb.apidrift import history

    assert history_pack.cached_history(history_pack.shipped_path(), history._stored) is not None  # (packs it)
    assert history_pack.cached_history(history_pack.shipped_path(), history._stored) is not None  # (reads it)
    assert seen == [("fallback", fallback_pack.FORMAT)] * 2 + [(history_pack.STEM, history_pack.FORMAT)] * 2
    for module in (fallback_pack, history_pack):
        source = Path(module.__file__).read_text()
        assert "packed_cache.cache_folder()" not in source and "packed_cache.writable(" not in source
