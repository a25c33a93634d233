"""The fork server's protocol (kb/reproduce/forkserver.py): the preload has its own wait, and a wait that
times out stops the server, so a late reply is never read as the answer to the next request."""

from __future__ import annotations

import os
from pathlib import Path

from kb.reproduce.forkserver import ForkServer


def _env() -> dict[str, str]:
    return {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}


def _program(tmp_path: Path, code: str) -> list[str]:
    script = tmp_path / "program.py"
    script.write_text(code)
    return ["--result-dir", str(tmp_path / "results"), str(script)]


def test_a_preload_longer_than_the_start_wait_is_waited_for(tmp_path: Path) -> None:
    # A server slow to get ready (a sitecustomize that sleeps 8 s stands for a contended machine's preload,
    # which once took over 60 s) while the wait for a fork to start is 5 s. Before the server said "ready",
    # that wait covered the preload too: "did not start the program".
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text("import time\ntime.sleep(8)\n")
    env = {**_env(), "PYTHONPATH": os.pathsep.join([str(slow), _env()["PYTHONPATH"]])}
    server = ForkServer(env, start_timeout=5)
    try:
        exit_code, timed_out = server.run(_program(tmp_path, "import sys\nsys.exit(3)\n"), str(tmp_path), _env(),
                                          str(tmp_path / "out.log"), 120)
        assert (exit_code, timed_out) == (3, False)
        assert server.ready and server.alive()
    finally:
        server.close()


def test_a_server_that_never_gets_ready_is_stopped(tmp_path: Path) -> None:
    # A server still importing when the ready wait ends is killed: its late "ready" and replies must never
    # reach a later request (the next run starts a new server).
    server = ForkServer(_env(), ready_timeout=0.01)
    try:
        try:
            server.run(_program(tmp_path, "pass\n"), str(tmp_path), _env(), str(tmp_path / "out.log"), 120)
        except OSError as exc:
            assert "had not imported the libraries" in str(exc)
        else:
            raise AssertionError("a server not ready in time ran the program")
        server.proc.wait(timeout=30)
        assert not server.alive()
    finally:
        server.close()

