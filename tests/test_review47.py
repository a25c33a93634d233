"""review47 (turn 47): defects found in main by the turn's review, each test failing on main before its fix
(benchmarks/results/review-turn47.txt)."""

from __future__ import annotations

import os
import select
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
