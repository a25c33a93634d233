"""The `kb` command line: the entry point, which sends each command where it is handled.

`kb diagnose` goes straight to kb/cli/diagnose.py, whose small argument reader keeps
argparse (and the modules of the other commands) out of its start-up; everything else,
and any diagnose arguments that reader does not take, goes to argparse in kb/cli/commands.py.
Exit codes are listed in kb/cli/output.py and in the README.
"""

from __future__ import annotations

import gc
import os
import sys

from kb.cli.output import EXIT_OK, EXIT_USAGE, TerminalWriter, tolerate_encoding
from kb.knowledge.paths import KnowledgeNotFound

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Sequence


COMMANDS = ("diagnose", "list", "show", "explain", "env", "plan", "new", "check", "run", "verify", "reproduce")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    prefix = f"kb {args[0]}" if args and args[0] in COMMANDS else "kb"
    if sys.stdout is None:  # started with standard output closed (`kb ... >&-`): the answer would be lost
        if sys.stderr is not None:
            TerminalWriter(sys.stderr).write(f"{prefix}: cannot write the output: standard output is closed\n")
        return EXIT_USAGE
    saved = sys.stdout, sys.stderr
    if sys.stderr is None or sys.stdin is None:  # started with standard error or input closed (`2>&-`, `<&-`)
        _fill_closed_descriptors()
    tolerate_encoding()
    # the terminal boundary: every byte kb writes passes sanitize_for_terminal (kb/cli/output.py)
    sys.stdout = TerminalWriter(sys.stdout)
    if sys.stderr is not None:
        sys.stderr = TerminalWriter(sys.stderr)
    try:
        return _main(args, prefix)
    finally:
        sys.stdout, sys.stderr = saved


def _fill_closed_descriptors() -> None:
    """(audit49) Standard error or input closed at start: /dev/null takes their descriptors (2, 0), and standard error's
    stream writes there. print(file=None) writes to standard output: kb's messages (an error line, `kb run`'s
    diagnosis) ended up in the answer's stream, a JSON document's reader got text. And a closed descriptor is the
    next one a file or a pipe gets: what is written to 2 (kb run's copy of the command's standard error, a library's
    C-level message, a child's standard error) would land in whatever kb opened there. sys.stdin stays None: kb
    diagnose says that standard input is closed."""
    for fd, flags in ((0, os.O_RDONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, flags)  # (the lowest free descriptor: fd itself when the lower ones are open)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                pass
    if sys.stderr is None:
        try:
            sys.stderr = open(os.devnull, "w", encoding="utf-8", errors="replace")  # noqa: SIM115 - the process's
        except OSError:
            pass


def script() -> int:
    """The `kb` command (pyproject's [project.scripts], and ``python -m kb``): main(), and after `kb diagnose`
    no interpreter teardown (freeing the knowledge index's objects one by one, module by module: ~3 ms, a
    tenth of its start-up). Exit handlers run and the standard streams are flushed first; when a flush fails,
    the ordinary exit reports it as it always did. Other commands return their exit code."""
    if sys.argv[1:2] == ["diagnose"] and gc.isenabled():
        # Start-up (kb's modules, the knowledge index: ~10^5 objects, none of them garbage) without the cyclic
        # collector, whose passes over them were ~1 ms of the ~10 kb adds to Python's start; run_diagnose turns
        # it back on (started_up) before the input is read, so a long log or a pipe is read with it on, as always
        # (a file of at most one block is read with it off: started_up's docstring says why).
        gc.disable()
        _paused.append(True)
    if sys.argv[1:2] == ["diagnose"]:
        _command.append(True)
    try:
        code = main()
    finally:
        _command.clear()
    if sys.argv[1:2] == ["diagnose"] and isinstance(code, int):
        atexit = sys.modules.get("atexit")  # an exit handler is registered through this module: none when no one
        if atexit is not None:  # imported it (a warm run: the regex cache registers one only for a new pattern)
            atexit._run_exitfuncs()
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except BaseException:  # noqa: BLE001 - the ordinary exit flushes again and says what failed
            raise SystemExit(code) from None
        os._exit(code)
    return code


_paused: list[bool] = []  # [True] while script() holds the cyclic collector off for diagnose's start-up
_command: list[bool] = []  # [True] when script() runs `kb diagnose`: the process is the command's own

# (turn 43) A regular file this long or longer is read with malloc keeping what it frees (keep_freed_memory).
LARGE_INPUT_BYTES = 32 * 1024 * 1024
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024  # (glibc's largest: 4 MiB times the size of a long)
TRIM_THRESHOLD_BYTES = 64 * 1024 * 1024


def keep_freed_memory(size: int | None) -> bool:
    """Before `kb diagnose` (the command: script()) reads a regular file of ``size`` >= LARGE_INPUT_BYTES, on Linux
    with glibc: malloc is told to serve blocks under MMAP_THRESHOLD_BYTES from its heap and to keep up to
    TRIM_THRESHOLD_BYTES of it free instead of handing it back to the system; returns whether it was told.

    Why: each MB of input is a MB of bytes read, its decoding (a MB of text), its remainder and its lines' list, and
    the previous MB's are freed. glibc gave that memory back to the system and faulted fresh pages in for the next MB
    (~16,000 minor faults, ~0.04-0.06 s of system time of the 200 MB log's ~0.85 s here: issue 26); kept, the same
    pages serve every block (~400 faults; peak RSS about the same: only what is freed stays mapped, and what is in use
    at once is bounded as before). ctypes costs ~2.5 ms to import, so a shorter input, another platform, or kb called
    in-process (a notebook's or a test's process is not kb's to tune) is read as before; a pipe, whose length is not
    known, is told once it has handed over LARGE_INPUT_BYTES (kb/cli/diagnose.py). Only the speed depends on it."""
    if not _command or size is None or size < LARGE_INPUT_BYTES or not sys.platform.startswith("linux"):
        return False
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
        if not libc.startswith("glibc"):
            return False
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ValueError, OSError, AttributeError, ImportError):  # (no such name, no ctypes, no mallopt)
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) & bool(mallopt(_M_TRIM_THRESHOLD,
                                                                                  TRIM_THRESHOLD_BYTES))


def started_up(small_input: bool = False) -> None:
    """The end of `kb diagnose`'s start-up (kb/cli/diagnose.py): when script() turned the cyclic collector off,
    it is turned on again, with what start-up built frozen (gc.freeze: moved out of the collector's generations,
    never traversed again; it lives until the process ends anyway). Elsewhere (kb.cli.main called in-process,
    a notebook, tests) this does nothing.

    ``small_input``: the input is a regular file of at most one block (kb/diagnose/input.py fits_one_block). The
    collector then stays off until the process ends (script() ends it with os._exit): the collector only bounds
    the memory of cyclic garbage, and whatever a diagnosis of so short an input leaves is bounded by the input
    (a diagnosis leaves none at all: tests/test_startup_gc.py), while its young-generation passes over what the
    diagnosis, the document and the text build were 0.05-0.2 ms CPU of a one-line run (1 to 3 passes; turn 42).
    A pipe, a terminal or a longer file is read with the collector on, as before."""
    if _paused:
        _paused.clear()
        if small_input:
            return
        gc.freeze()
        gc.enable()


def _main(args: list[str], prefix: str) -> int:
    try:
        code = _run(args)
        sys.stdout.flush()  # a full disk shows here, while kb can still say so in one line
        if getattr(sys.stdout, "failed", False):  # a write failed and was swallowed (argparse's help does)
            _discard_stdout()
            print(f"{prefix}: cannot write the output", file=sys.stderr)
            return EXIT_USAGE
        return code
    except BrokenPipeError:  # `kb ... | head`
        _discard_stdout()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except KnowledgeNotFound as exc:  # never answer from an empty knowledge base
        print(f"kb: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:
        from kb.knowledge.model import KnowledgeError

        if not isinstance(exc, KnowledgeError):
            raise
        # (turn 41) a knowledge root that lacks a file or holds a broken one ($KB_KNOWLEDGE_DIR planted or half
        # copied): a table read where a command's handler starts (or where its error handler imports a module that
        # reads one) is said in one line, not as a traceback
        print(f"{prefix}: broken knowledge file: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # no traceback: one line, whatever failed
        import errno

        # a full disk or quota, a file grown past its limit, a descriptor not open for writing: errors
        # of writing, not of reading the input
        if (exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) or getattr(sys.stdout, "failed", False)
                or _stdout_broken()):
            _discard_stdout()
            print(f"{prefix}: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        else:
            print(f"kb: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""), file=sys.stderr)
        return EXIT_USAGE


def _run(args: list[str]) -> int:
    if args[:1] == ["diagnose"]:
        from kb.cli.diagnose import parse_diagnose_args, run_diagnose

        options = parse_diagnose_args(args[1:])
        if options is not None:
            return run_diagnose(options)
    from kb.cli.commands import run_command

    return run_command(args)


def _stdout_broken() -> bool:
    """Whether standard output cannot take what kb wrote (a full disk, a closed pipe)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError:
        return True
    return False


def _discard_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's last flush at exit fails no more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass
