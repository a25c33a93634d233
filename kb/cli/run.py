"""`kb run -- CMD ARGS…`: run a command, pass its output through unchanged, and diagnose it when it fails.

The command's standard output and error reach kb's own, each on its own stream, byte for byte and as
they come (whatever each read returns is written at once: no line buffering, no added latency). Beside
that, kb keeps the last ``TAIL_BYTES`` of the output in memory, in whole lines: each stream is cut into
lines on its own, and a stream's complete lines join the tail when they complete, so lines of
torchrun's or accelerate's ranks, written in pieces to both streams at once, never split each other.
When the command fails (a non-zero exit), kb prints the one-screen diagnosis of that tail on standard
error, after a separator line; when it succeeds, kb adds nothing.

kb exits with the command's exit code: 128+N when a signal N ended it (137 for SIGKILL, 130 for
SIGINT), 127 when the command is not found, 126 when it cannot be run; when kb's standard output cannot be
written (a full disk, a read-only descriptor; not a closed pipe), kb says so in one line, and exits 2 if the
command succeeded. Signals: SIGTERM sent to kb is
passed to the command; so is SIGINT, except when kb runs in the foreground of a terminal, where Ctrl-C
reaches the command by itself (they share the process group) and a second copy would interrupt its
clean-up. No diagnosis follows an interrupted run (Ctrl-C, SIGINT, or a closed output pipe: SIGPIPE).

The command's environment gets ``PYTHONUNBUFFERED=1`` unless it sets the variable itself: its output
is a pipe now, not a terminal, and Python programs (torchrun's workers too) would otherwise hold their
standard output back in blocks of 8 KB.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections import deque

from kb.cli.output import EXIT_USAGE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

TAIL_BYTES = 2 * 1024 * 1024  # the output kept for the diagnosis: the last 2 MiB, in whole lines
MAX_LINE_BYTES = 64 * 1024  # a longer line is kept in part (kb diagnose reads no more of a line)
READ_BYTES = 64 * 1024
DRAIN_SECONDS = 5.0  # after the command exits, how long its output may still come (processes it left behind)
EXIT_NOT_FOUND, EXIT_CANNOT_EXECUTE = 127, 126
USAGE = "usage: kb run [--] COMMAND [ARGS...]"


class Tail:
    """The last ``limit`` bytes of the output (whole lines of each stream, in the order they completed)."""

    def __init__(self, limit: int = TAIL_BYTES) -> None:
        self.limit = limit
        self.blocks: deque[bytes] = deque()
        self.size = 0
        self.dropped = 0  # bytes let go from the front
        self._lock = threading.Lock()

    def add(self, block: bytes) -> None:
        """Add whole lines (one stream's, ending in a newline)."""
        with self._lock:
            self.blocks.append(block)
            self.size += len(block)
            while self.size > self.limit and len(self.blocks) > 1:
                gone = self.blocks.popleft()
                self.size -= len(gone)
                self.dropped += len(gone)

    def data(self) -> bytes:
        with self._lock:
            return b"".join(self.blocks)


class LineCapture:
    """One stream's bytes, cut into lines for the tail: what ends in a newline goes to the tail at once, the
    unfinished last line waits (at most MAX_LINE_BYTES of it are kept) until its newline comes."""

    def __init__(self, tail: Tail) -> None:
        self.tail = tail
        self.carry = b""
        self.skipping = False  # inside an over-long line whose first MAX_LINE_BYTES are in carry
        self.write_error: OSError | None = None  # why forwarding the stream stopped, when a write failed

    def feed(self, data: bytes) -> None:
        cut = data.rfind(b"\n")
        if cut == -1:
            if not self.skipping:
                self.carry += data
                if len(self.carry) > MAX_LINE_BYTES:
                    self.carry, self.skipping = self.carry[:MAX_LINE_BYTES], True
            return
        lines = data[: cut + 1]
        if self.skipping:  # the over-long line ends at the first newline: keep its head, drop the rest of it
            lines = lines[lines.find(b"\n"):]
            self.skipping = False
        self.tail.add(self.carry + lines)
        rest = data[cut + 1:]
        self.carry, self.skipping = rest[:MAX_LINE_BYTES], len(rest) > MAX_LINE_BYTES

    def close(self) -> None:
        """The stream ended: its unfinished last line joins the tail."""
        if self.carry:
            self.tail.add(self.carry + b"\n")
            self.carry = b""


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (a pipe takes part of a large write; a non-blocking one none)."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            import select

            select.select([], [fd], [])
            continue
        view = view[written:]


def pump(source: Any, fd: int, capture: LineCapture) -> None:
    """Forward ``source`` (the command's pipe) to ``fd`` as it comes, and capture it, until it ends. When ``fd``
    cannot be written any more (``kb run … | head``), the pipe is closed, so the command meets the closed
    pipe it would have met without kb."""
    src = source.fileno()
    try:
        while True:
            data = os.read(src, READ_BYTES)
            if not data:
                break
            try:
                write_all(fd, data)
            except OSError as exc:
                capture.write_error = exc
                capture.feed(data)  # (what could not be written is diagnosed all the same)
                break
            capture.feed(data)
    except OSError:
        pass
    finally:
        capture.close()
        try:
            source.close()
        except OSError:
            pass


def _foreground_of_a_terminal() -> bool:
    """Whether kb's process group is the foreground group of its controlling terminal: then a Ctrl-C
    there was sent to the command as well (it is in kb's group)."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return False
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:
        return False
    finally:
        os.close(fd)


class Signals:
    """While the command runs: SIGINT and SIGTERM sent to kb go to the command (SIGINT from a terminal already
    did), and kb remembers an interrupt instead of raising KeyboardInterrupt."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.interrupted = False
        self._old: dict[int, Any] = {}

    def _forward(self, signum: int, frame: Any) -> None:
        if signum == signal.SIGINT:
            self.interrupted = True
            if _foreground_of_a_terminal():
                return
        try:
            os.kill(self.pid, signum)
        except OSError:  # already gone
            pass

    def __enter__(self) -> Signals:
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                self._old[signum] = signal.signal(signum, self._forward)
            except (ValueError, OSError):  # not the main thread: signals stay as they are
                pass
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, old in self._old.items():
            signal.signal(signum, old)


def _block_signals() -> set[signal.Signals] | None:
    """Block SIGINT and SIGTERM in this thread; the mask before, or None where threads' masks cannot be set."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


def exit_code(returncode: int) -> int:
    """The shell's exit code for a child's ``returncode``: 128+N for a death by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def run(command: list[str]) -> int:
    """Run ``command``, stream its output, diagnose it on failure; the command's exit code."""
    import subprocess

    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        print(f"{USAGE}\nkb run: no command given", file=sys.stderr)
        return 2
    if not command[0]:  # (audit49) the shell's `"$CMD" args` with CMD unset: Popen said "cannot run : Permission denied"
        print("kb run: command not found: the command's name is empty", file=sys.stderr)
        return EXIT_NOT_FOUND
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    try:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    except FileNotFoundError:
        print(f"kb run: command not found: {command[0]}", file=sys.stderr)
        return EXIT_NOT_FOUND
    except OSError as exc:  # not executable, a directory, a bad interpreter line
        print(f"kb run: cannot run {command[0]}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_CANNOT_EXECUTE
    tail = Tail()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()  # kb's own buffered text before the command's bytes
    captures = [LineCapture(tail), LineCapture(tail)]
    pumps = [threading.Thread(target=pump, args=(pipe, fd, capture), daemon=True)
             for pipe, fd, capture in ((child.stdout, 1, captures[0]), (child.stderr, 2, captures[1]))]
    with Signals(child.pid) as signals:
        # The pumps start with SIGINT and SIGTERM blocked (a thread inherits its creator's mask), so the kernel gives
        # those signals to the main thread: one given to a pump left the main thread asleep in wait() and the forward
        # undone until the command ended by itself (CI at eb8a3d4: test_sigint_to_kb_run_is_forwarded_and_exits_130)
        blocked = _block_signals()
        try:
            for thread in pumps:
                thread.start()
        finally:
            if blocked is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        returncode = child.wait()
        _join(pumps, DRAIN_SECONDS)
    code = exit_code(returncode)
    lost = captures[0].write_error
    if lost is not None and not isinstance(lost, BrokenPipeError):
        # (audit49) a full disk, a read-only or closed descriptor: the command wrote into kb's pipe and succeeded, its
        # output went nowhere, and kb said nothing (exit 0). As every kb command: one line, and 2 unless the command
        # failed on its own (its code then); `kb run ... | head` (a closed pipe) stays as it was.
        print(f"kb run: cannot write the output: {lost.strerror or lost}", file=sys.stderr)
        if code == 0:
            return EXIT_USAGE  # (every kb command's code for an output that cannot be written)
    stopped = {-signal.SIGINT, -getattr(signal, "SIGPIPE", signal.SIGINT)}  # Ctrl-C, `kb run ... | head`
    if returncode == 0 or signals.interrupted or returncode in stopped:
        return code
    _diagnose(tail, code, returncode)
    return code


def _join(threads: list[threading.Thread], seconds: float) -> None:
    import time

    deadline = time.monotonic() + seconds
    for thread in threads:
        thread.join(max(deadline - time.monotonic(), 0))


def _diagnose(tail: Tail, code: int, returncode: int) -> None:
    """The one-screen diagnosis of the tail, on standard error after a separator; never an exception."""
    from kb.cli.output import Style, terminal_width

    style = Style(sys.stderr)
    width = terminal_width(sys.stderr)
    how = f"exit code {code}"
    if returncode < 0:
        try:
            how += f", {signal.Signals(-returncode).name}"
        except ValueError:  # a real-time signal
            how += f", signal {-returncode}"
    label = f"─── kb: the command failed ({how}) "
    try:
        print(style(label + "─" * max(width - len(label), 3), "1"), file=sys.stderr, flush=True)
        try:
            text = format_tail(tail, width, style)
        except Exception as exc:  # a bug in kb must not hide the command's own exit code
            text = f"kb run: could not diagnose the output ({type(exc).__name__}); please report it\n"
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # standard error closed or gone: the exit code still tells
        pass


def format_tail(tail: Tail, width: int = 80, style: Callable[[str, str], str] | None = None) -> str:
    """The one-screen diagnosis of the captured output (a line of its own when there is nothing to read)."""
    import io

    from kb.diagnose.diagnosis import diagnose_reader
    from kb.diagnose.document import diagnosis_document
    from kb.diagnose.input import LogReader, UnusableInput
    from kb.knowledge.index import load_index
    from kb.render.diagnosis import format_diagnosis
    from kb.render.text import plain

    data = tail.data()
    if not data.strip():
        return "kb run: the command printed nothing to diagnose\n"
    reader = LogReader(io.BufferedReader(io.BytesIO(data)), "the command's output")  # type: ignore[arg-type]
    try:
        doc = diagnosis_document(diagnose_reader(reader, load_index()))
    except UnusableInput as exc:
        return f"kb run: nothing to diagnose: {exc}\n"
    if tail.dropped:
        doc["notes"].append(f"only the last {tail.size / 2**20:.1f} MiB of the output were read "
                            f"({tail.dropped / 2**20:.1f} MiB before them were passed through only)")
    return format_diagnosis(doc, width=width, style=style or plain)


def cmd_run(ns: argparse.Namespace) -> int:
    return run(list(ns.command_line))


def add_run_parser(sub: Any) -> None:
    """`kb run`'s subparser (kb/cli/commands.py)."""
    import argparse

    p = sub.add_parser(
        "run", help="run a command (torchrun, accelerate launch, python train.py); on failure, diagnose its output",
        description="Run COMMAND with its output passed through unchanged; when it fails, print kb's diagnosis of "
                    "the output's last 2 MiB on standard error. Exits with the command's exit code.",
        epilog="examples:\n  kb run -- python train.py --config c.yaml\n  kb run -- torchrun --nproc-per-node 2 "
               "train.py\n  kb run -- accelerate launch train.py\n\nexit codes: the command's; 128+N when signal N "
               "ended it; 127 command not found; 126 cannot run it; 2 no command, or standard output that cannot be "
               "written (a full disk) after a command that succeeded (docs/diagnose.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="kb run [-h] [--] COMMAND [ARGS...]",
    )
    p.add_argument("command_line", nargs=argparse.REMAINDER, metavar="COMMAND [ARGS...]")
    p.set_defaults(func=cmd_run)
