"""review47 (turn 47): defects found in main by the turn's review, each test failing on main before its fix
(benchmarks/results/review-turn47.txt)."""

from __future__ import annotations

import os
import select
import tempfile
import time
from pathlib import Path

import pytest

from kb.reproduce import forkserver
from kb.reproduce.forkserver import PRELOAD, ForkServer

ROOT = Path(__file__).resolve().parents[1]


# ---- kb/reproduce/forkserver.py's replies


def _fast_preload(tmp_path: Path, said_on_import: str = "") -> dict[str, str]:
    """An environment whose preload ends at once: each PRELOAD module is a stand-in that raises ImportError
    (the server skips it), after printing ``said_on_import`` where given."""
    libs = tmp_path / "libs"
    libs.mkdir()
    for name in {n.split(".")[0] for n in PRELOAD}:
        (libs / f"{name}.py").write_text(f"print({said_on_import!r})\n" * bool(said_on_import)
                                         + "raise ImportError('a stand-in')\n")
    return {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": os.pathsep.join([str(libs), str(ROOT)])}


def _program(tmp_path: Path, code: str) -> list[str]:
    script = tmp_path / "program.py"
    script.write_text(code)
    return ["--result-dir", str(tmp_path / "results"), str(script)]


def test_a_program_that_ends_before_the_client_reads_its_start_is_not_a_timeout(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # The server writes the fork's pid and, when the program ends at once, its exit right after. A client slow
    # to read (a loaded machine; here each wait starts 1 s late) read both lines through a buffered readline,
    # then waited the whole timeout for the exit it had already read: (None, True), "timed out", after 60 s.
    real_select = select.select

    class LateSelect:
        @staticmethod
        def select(*args: object) -> object:
            time.sleep(1.0)
            return real_select(*args)

    monkeypatch.setattr(forkserver, "select", LateSelect)
    env = _fast_preload(tmp_path)
    server = ForkServer(env, start_timeout=30)
    try:
        t0 = time.monotonic()
        result = server.run(_program(tmp_path, "import sys\nsys.exit(3)\n"), str(tmp_path), env,
                            str(tmp_path / "out.log"), 30)
        assert result == (3, False), (tmp_path / "out.log").read_text()
        assert time.monotonic() - t0 < 25
        assert server.alive()
    finally:
        server.close()


def test_a_library_that_prints_while_the_server_imports_it_is_no_reply(tmp_path: Path) -> None:
    # The preload ran with the server's standard output still the reply pipe: a library printing on import
    # (old bitsandbytes printed its banner to stdout) put a line before "ready", read as a reply: JSONDecodeError.
    env = _fast_preload(tmp_path, said_on_import="a library's banner")
    server = ForkServer(env, start_timeout=30)
    try:
        result = server.run(_program(tmp_path, "import sys\nsys.exit(3)\n"), str(tmp_path), env,
                            str(tmp_path / "out.log"), 60)
        assert result == (3, False)
    finally:
        server.close()


# ---- kb/reproduce/pinned.py's cache: the index cache's trust rules (issue 26, P1/P2)


def _pinned_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> tuple[Path, Path]:
    """A wheelhouse with one wheel; (what prepare() returned, the folder it ran in) under ``env``."""
    from wheel_support import build_wheel

    from kb.reproduce.pinned import prepare

    house = tmp_path / "house"
    build_wheel(house, "kbpin_review", "1.0")
    for name in ("KB_PINNED_CACHE", "KB_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # a run without a trusted cache installs here
    return prepare(("kbpin-review==1.0",), house), work


def test_a_relative_xdg_cache_home_puts_no_pinned_environment_in_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # cache_root() joined XDG_CACHE_HOME as given: a relative one made the environment (code put first on the
    # program's path) under whatever folder kb ran in, as the index cache did before issue 26's P2.
    got, work = _pinned_environment(tmp_path, monkeypatch, XDG_CACHE_HOME="rel-cache")
    assert got.is_absolute() and work not in got.parents
    assert not (work / "rel-cache").exists()
    assert (got / "kbpin_review" / "__init__.py").is_file()


def test_an_empty_home_puts_no_pinned_environment_in_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Path.home() is "/" for an empty HOME: the environment went to /.cache/kb/pinned (issue 26's P2 for the
    # index cache, "an empty HOME means no cache").
    got, work = _pinned_environment(tmp_path, monkeypatch, HOME="")
    assert got.is_absolute() and work not in got.parents
    assert Path("/.cache") not in got.parents


def test_a_pinned_environment_planted_in_a_folder_others_can_write_is_never_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The environment's name is computable from the pins (environment_key); one found complete was returned as
    # it was, so another user who can write the cache folder (a shared XDG_CACHE_HOME, a world-writable
    # KB_PINNED_CACHE) ran their code in the program.
    from kb.knowledge.pins import parse_pins
    from kb.reproduce.pinned import COMPLETE_MARKER, environment_key

    shared = tmp_path / "shared"
    planted = shared / environment_key(parse_pins(("kbpin-review==1.0",)))
    (planted / "kbpin_review").mkdir(parents=True)
    (planted / "kbpin_review" / "__init__.py").write_text("PLANTED = True\n")
    (planted / COMPLETE_MARKER).write_text("{}")
    shared.chmod(0o777)
    got, _ = _pinned_environment(tmp_path, monkeypatch, KB_PINNED_CACHE=str(shared))
    assert got != planted
    assert "PLANTED" not in (got / "kbpin_review" / "__init__.py").read_text()
    shared.chmod(0o755)  # a folder of this user's that no one else can write to is a cache as before
    again = tmp_path / "again"
    again.mkdir()
    got, _ = _pinned_environment(again, monkeypatch, KB_PINNED_CACHE=str(shared))
    assert got == planted


# ---- kb/fixtures/qwen.py's checkpoint cache (issue 26, P1)


def _stub_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checkpoint writer (random weights drawn on the GPU) replaced by one that writes only the config: the
    cache's folder and lock are under test, not the weights."""
    import json

    from kb.fixtures import qwen

    monkeypatch.setattr(qwen, "_write", lambda folder, cfg: (folder / "config.json").write_text(json.dumps(cfg)))


def test_a_checkpoint_planted_in_a_shared_cache_folder_is_never_loaded(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # The default was /tmp/kb-cache, one folder for every user of the machine, and a checkpoint found there under
    # its computable name (qwen2-<shape>-<n>L-<sha256 of the config>) was loaded as the case's model.
    pytest.importorskip("torch")
    from kb.fixtures import qwen

    _stub_writer(monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    shared = tmp_path / "shared"
    monkeypatch.setenv("KB_CACHE", str(shared))
    made = qwen.checkpoint("small", layers=1)  # the name another user computes
    (made / "config.json").write_text('{"planted": true}')
    assert qwen.checkpoint("small", layers=1) == made  # a private folder is a cache as before...
    shared.chmod(0o777)  # ...one that others can write to is not
    again = qwen.checkpoint("small", layers=1)
    assert again != made and "planted" not in (again / "config.json").read_text()


def test_a_link_planted_at_the_checkpoint_lock_truncates_nothing(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # The lock was opened with open(path, "w"): a link planted at its computable name made kb truncate the
    # link's target (another of the user's files).
    pytest.importorskip("torch")
    from kb.fixtures import qwen

    _stub_writer(monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("KB_CACHE", str(cache))
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n")
    cfg = qwen.config_dict("small", 1)
    key = qwen.hashlib.sha256(qwen.json.dumps([qwen.FORMAT, cfg], sort_keys=True).encode()).hexdigest()[:12]
    (cache / f".qwen2-small-1L-{key}.lock").symlink_to(victim)
    try:
        qwen.checkpoint("small", layers=1)
    except OSError:
        pass  # refusing the link is right; following it is not
    assert victim.read_text() == "the user's own file\n"


# ---- kb diagnose's encoding messages: UTF-16/32 after a UTF-8 byte-order mark (issue 26, C1)

LOG = "Traceback (most recent call last):\n  File \"train.py\", line 5, in <module>\nRuntimeError: mat1 and mat2 " \
      "must have the same dtype, but got Double and Float\n" * 4


@pytest.mark.parametrize(("data", "named"), [
    (b"\xef\xbb\xbf" + LOG.encode("utf-16-le"), "UTF-16LE"),  # read as UTF-16BE: the mark shifts every unit
    (b"\xef\xbb\xbf" + LOG.encode("utf-16-be"), "UTF-16BE"),  # read as UTF-16LE
    (b"\xef\xbb\xbf" + LOG.encode("utf-32-le"), "UTF-32LE"),  # read as UTF-32BE
    (b"\xef\xbb\xbf" + LOG.encode("utf-16"), "UTF-16"),  # its own mark after the UTF-8 one: "UTF-16BE without a mark"
    (b"\xef\xbb\xbf" + LOG.encode("utf-32"), "UTF-32"),  # "UTF-32BE without a mark"
])
@pytest.mark.parametrize("via", ["file", "stdin"])
def test_wide_text_after_a_utf8_byte_order_mark_is_named_as_it_is(data: bytes, named: str, via: str,
                                                                  tmp_path: Path) -> None:
    import subprocess
    import sys

    log = tmp_path / "train.log"
    log.write_bytes(data)
    args = [sys.executable, "-m", "kb", "diagnose", str(log) if via == "file" else "-"]
    proc = subprocess.run(args, input=data if via == "stdin" else None, capture_output=True, cwd=ROOT, timeout=120)
    message = proc.stderr.decode()
    assert proc.returncode == 2 and message.count("\n") == 1, message
    assert f" {named} text after a UTF-8 byte-order mark" in message, message
    assert f"drop its first 3 bytes, then e.g. iconv -f {named} -t UTF-8" in message, message
    assert "without a byte-order mark" not in message


# ---- a package whose METADATA is not UTF-8 (kb env's report never stops; kb plan --trainer reads trl's)


def _site_with_latin1_metadata(tmp_path: Path) -> dict[str, str]:
    """A folder first on the path with peft, trl and an unrelated package whose METADATA is Latin-1 (an old
    setuptools writing an author's name in the machine's code page): importlib.metadata raises
    UnicodeDecodeError reading any of them."""
    site = tmp_path / "site"
    for name, version in (("peft", "0.9"), ("trl", "0.9"), ("someones_tool", "1.0")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_bytes(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
                                        + b"Author: J\xfcrgen M\xfcller\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}


@pytest.mark.parametrize("args", [
    ["env"], ["env", "--format", "json"],
    ["diagnose", "--env", "examples/dtype-double-vs-float.txt"],
    ["plan", "--model", "Qwen/Qwen2.5-0.5B", "--trainer", "dpo"],
])
def test_a_package_metadata_not_in_utf8_is_reported_not_a_traceback(args: list[str], tmp_path: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "kb", *args], env=_site_with_latin1_metadata(tmp_path),
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1), proc.stderr[-2000:]
    if args == ["env"]:
        assert "peft          its package metadata could not be read (UnicodeDecodeError)" in proc.stdout
        assert "  - trl: its package metadata could not be read" in proc.stdout


def test_kb_reproduce_runs_beside_a_package_metadata_not_in_utf8(tmp_path: Path) -> None:
    # kb/reproduce/ranges.py read every distribution's metadata for the reproduction's version ranges, and the
    # harness the tracked libraries': the same UnicodeDecodeError ended kb reproduce in a traceback.
    import subprocess
    import sys

    pytest.importorskip("torch")
    proc = subprocess.run([sys.executable, "-m", "kb", "reproduce", "KB0001"], env=_site_with_latin1_metadata(tmp_path),
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert "Traceback" not in proc.stderr and proc.returncode == 0, (proc.stdout + proc.stderr)[-2000:]
    assert "reproduced" in proc.stdout


# ---- kb verify --jobs: the other commands' whole-number check (issue 26, L1)


@pytest.mark.parametrize(("jobs", "said"), [
    ("9" * 5000, "too large: a number of 5000 digits"),  # was "invalid int value: '99...9'" (all 5,000 echoed)
    ("0", "must be at least 1: 0"),  # was taken (run as 1) after building the stack's venv
    ("-3", "must be at least 1: -3"),
])
def test_verify_jobs_is_a_whole_number_of_at_least_one(jobs: str, said: str) -> None:
    import contextlib
    import io

    from kb.cli.commands import build_parser

    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["verify", "KB0001", "--stack", "lowest", "--jobs", jobs])
    assert stop.value.code == 2
    assert said in err.getvalue() and len(err.getvalue()) < 500, err.getvalue()[:300]
