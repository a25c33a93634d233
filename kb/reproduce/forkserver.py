"""A Python that has imported the libraries once and forks a child per program: fast test runs.

A case program spends most of a CPU run importing torch, transformers and what they pull in (about
4.5 s of 5.5 s on the CI machine). For the test suite, a server process imports them once; each run
is a ``fork()`` of it, so the program starts with them in ``sys.modules`` and runs the same library
code under the same harness (kb/reproduce/harness.py), with its own environment, working folder,
session (killed with its children at the timeout) and output file.

Only runs that a fresh interpreter and a fork cannot tell apart use it (:func:`eligible`): the plain
python launcher, no GPU (the profile hides CUDA before the server imports torch), no memory cgroup,
no pinned versions, and no environment of the reproduction's own (libraries read some variables at
import). It is used only when asked (``pytest`` without ``--kb-record``); `kb reproduce` and every
recorded run start a fresh Python.

    python -m kb.reproduce.forkserver     # the server: JSON requests on stdin, replies on stdout
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from typing import Any

# What the server imports before it forks (each one that is installed). `transformers.trainer` pulls in
# peft, accelerate and bitsandbytes where they are installed.
PRELOAD = ("numpy", "torch", "transformers", "transformers.trainer", "peft", "accelerate", "datasets", "trl")

# How long a client waits for the preload to end (it reads the server's "ready" line), and for a fork to be
# reported started.
READY_TIMEOUT_S = 900.0
START_TIMEOUT_S = 60.0


def eligible(launcher: str, gpus: int, host_memory_cap_gib: float | None, pins: tuple[str, ...],
             own_env: dict[str, str]) -> bool:
    """Whether a run can be a fork of the preloaded server without changing what it does."""
    return launcher == "python" and gpus == 0 and not host_memory_cap_gib and not pins and not own_env


class ForkServer:
    """One server process (started with ``env``), asked to run one program at a time."""

    def __init__(self, env: dict[str, str], ready_timeout: float = READY_TIMEOUT_S,
                 start_timeout: float = START_TIMEOUT_S) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "kb.reproduce.forkserver"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, start_new_session=True)
        self.ready = False
        self.ready_timeout = ready_timeout
        self.start_timeout = start_timeout
        self._pending = b""  # bytes read from the server past the last whole reply

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _reply(self, timeout: float | None) -> dict[str, Any] | None:
        """The next reply line, or None after ``timeout`` seconds without one.

        Replies are read from the pipe's descriptor into ``_pending``, never through a buffered reader: the
        server writes two replies back to back (a fork's pid, then its exit when it ends at once), and a
        buffered ``readline`` takes both off the pipe, so the next ``select`` would wait the whole timeout
        for a reply already read (a program that ended at once reported as timed out)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise OSError("the fork server ended")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return json.loads(line)

    def run(self, argv: list[str], cwd: str, env: dict[str, str], output: str, timeout: float) -> tuple[int | None, bool]:
        """Run ``python -m kb.reproduce.harness ARGV`` as a fork; (exit code, timed out). The child's
        standard output and error go to the file ``output``. The first run waits for the server's
        preload (``ready_timeout``), apart from the program's own ``timeout``."""
        assert self.proc.stdin is not None
        if not self.ready:
            # The preload's time is the machine's (a contended one took over 60 s), not the program's: it has
            # its own, longer wait, and a program's time starts only once the server is ready.
            if self._reply_or_close(self.ready_timeout) is None:
                raise OSError(f"the fork server had not imported the libraries after {self.ready_timeout:.0f} s")
            self.ready = True
        self.proc.stdin.write(json.dumps({"argv": argv, "cwd": cwd, "env": env, "output": output}) + "\n")
        self.proc.stdin.flush()
        started = self._reply_or_close(self.start_timeout)
        if started is None:
            raise OSError("the fork server did not start the program")
        done = self._reply(timeout)
        if done is not None:
            return done["exit"], False
        try:
            os.killpg(started["pid"], signal.SIGKILL)  # the child leads its own session, its children with it
        except ProcessLookupError:
            pass
        self._reply_or_close(self.start_timeout)
        return None, True

    def _reply_or_close(self, timeout: float) -> dict[str, Any] | None:
        """The next reply; on a timeout the server is stopped, so that a late reply can never be read as
        the answer to a later request (the next run starts a new server)."""
        reply = self._reply(timeout)
        if reply is None:
            self.close()
        return reply

    def close(self) -> None:
        if self.alive():
            self.proc.kill()
            self.proc.wait()


_SERVERS: dict[tuple[tuple[str, str], ...], ForkServer] = {}


# Variables that change from one run to the next without bearing on imports (pytest names the current test):
# the server starts without them, each child gets them.
PER_RUN = ("PYTEST_CURRENT_TEST",)


def server_for(env: dict[str, str]) -> ForkServer:
    """The server started with ``env`` (one per environment, for the life of this process)."""
    base = {k: v for k, v in env.items() if k not in PER_RUN}
    key = tuple(sorted(base.items()))
    server = _SERVERS.get(key)
    if server is None or not server.alive():
        server = _SERVERS[key] = ForkServer(base)
    return server


@atexit.register
def _close_all() -> None:
    for server in _SERVERS.values():
        server.close()


# ---- the server side


def _child(request: dict[str, Any], channel: int) -> None:
    """In the forked child: become the program's process, run the harness, exit with its code."""
    code = 1
    try:
        os.close(channel)
        os.setsid()
        out = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        from kb.reproduce import harness

        code = harness.main(request["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - a failure of the harness itself: say so in the output
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def serve() -> int:
    # Replies go to the pipe the client reads, and only replies: the server's own standard output (a library
    # that prints while it is imported) goes to its standard error, never into the reply channel, where the
    # client would read it as a reply. The children get their own standard output.
    channel = os.dup(1)
    sys.stdout.flush()
    os.dup2(2, 1)
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - not installed, or broken: the program will say so itself
            pass
    replies = os.fdopen(channel, "w", buffering=1)
    replies.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request, channel)
        replies.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        replies.write(json.dumps({"exit": os.waitstatus_to_exitcode(status)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(serve())
