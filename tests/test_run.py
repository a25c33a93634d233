"""`kb run -- CMD ARGS…` (kb/cli/run.py): exit codes, output passed through byte for byte, the diagnosis after
a failure, the tail kept in bounded memory, lines of interleaved ranks kept whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kb.cli.run import MAX_LINE_BYTES, LineCapture, Tail, exit_code

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
KNOWN = "expected mat1 and mat2 to have the same dtype, but got: double != float"
KNOWN_TRACEBACK = ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                   f"    out = model(batch)\nRuntimeError: {KNOWN}\n")
SEPARATOR = "─── kb: the command failed"


def kb_run(*command: str, timeout: float = 60, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="80", NO_COLOR="1")
    return subprocess.run([PY, "-m", "kb", "run", *command], cwd=REPO, env=env, capture_output=True,
                          timeout=timeout, **kwargs)  # type: ignore[call-overload]


def test_success_exits_0_and_adds_nothing() -> None:
    result = kb_run("--", PY, "-c", "print('hello')")
    assert result.returncode == 0 and result.stdout == b"hello\n" and result.stderr == b""


def test_failure_exits_with_the_commands_code() -> None:
    result = kb_run("--", PY, "-c", "import sys; print('bye'); sys.exit(3)")
    assert result.returncode == 3 and result.stdout == b"bye\n"
    assert SEPARATOR in result.stderr.decode()  # a failure: the separator and kb's answer (here: none)


def test_without_double_dash() -> None:
    assert kb_run(PY, "-c", "import sys; sys.exit(1)").returncode == 1
    assert kb_run("true").returncode == 0


def test_child_killed_by_sigkill_exits_137() -> None:
    result = kb_run("--", PY, "-c", "import os, signal; print('x', flush=True); os.kill(os.getpid(), signal.SIGKILL)")
    assert result.returncode == 137 and result.stdout == b"x\n"
    assert "exit code 137, SIGKILL" in result.stderr.decode()


def test_child_killed_by_sigint_exits_130_without_diagnosis() -> None:
    code = "import os, signal; signal.signal(signal.SIGINT, signal.SIG_DFL); os.kill(os.getpid(), signal.SIGINT)"
    result = kb_run("--", PY, "-c", code)
    assert result.returncode == 130 and SEPARATOR not in result.stderr.decode()


def test_sigint_to_kb_run_is_forwarded_and_exits_130() -> None:
    """SIGINT sent to kb run alone (no terminal: a new session) reaches the command, whose death by it is 130."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    code = "import time; print('ready', flush=True); time.sleep(30)"
    # SIGINT's default action for kb and its command: an ignored SIGINT is inherited across exec (POSIX), and
    # pytest-xdist's workers run with it ignored, so the command ignored the forward (the flake of turns 42-43)
    proc = subprocess.Popen([PY, "-m", "kb", "run", "--", PY, "-c", code], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130
        assert time.monotonic() - start < 10  # the command was interrupted, not waited out
        err = proc.stderr.read().decode() if proc.stderr else ""
        assert "KeyboardInterrupt" in err and SEPARATOR not in err  # interrupted: no diagnosis
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_command_not_found_exits_127_with_one_line() -> None:
    result = kb_run("--", "kb-no-such-command-xyz", "arg")
    assert result.returncode == 127 and result.stdout == b""
    assert result.stderr.decode().strip() == "kb run: command not found: kb-no-such-command-xyz"


def test_not_executable_exits_126(tmp_path: Path) -> None:
    script = tmp_path / "script.sh"
    script.write_text("echo hi\n")
    result = kb_run("--", str(script))
    assert result.returncode == 126 and result.stderr.decode().count("\n") == 1


@pytest.mark.parametrize("args", [(), ("--",)])
def test_no_command_is_a_usage_error(args: tuple[str, ...]) -> None:
    result = kb_run(*args)
    assert result.returncode == 2 and "usage: kb run" in result.stderr.decode()


def test_diagnosis_after_a_failing_python_program() -> None:
    code = f"import sys; sys.stderr.write({KNOWN_TRACEBACK!r}); sys.exit(1)"
    result = kb_run("--", PY, "-c", code)
    err = result.stderr.decode()
    assert result.returncode == 1
    assert err.startswith(KNOWN_TRACEBACK)  # the command's own output first, unchanged
    after = err[len(KNOWN_TRACEBACK):]
    assert after.startswith(SEPARATOR + " (exit code 1)")
    assert "KB0001 dtype-double-vs-float" in after and "fix:" in after
    assert len(after.splitlines()) <= 32  # one screen (30 rows) and the separator


def test_diagnosis_of_a_real_torch_error() -> None:
    pytest.importorskip("torch")
    result = kb_run("--", PY, "-c", "import torch; torch.zeros(2, 2, dtype=torch.float64) @ torch.zeros(2, 2)")
    err = result.stderr.decode()
    assert result.returncode == 1
    assert err.index("RuntimeError: expected m1 and m2") < err.index(SEPARATOR) < err.index("KB0001")


def test_output_passes_through_byte_for_byte(tmp_path: Path) -> None:
    """Both streams, with bytes that are not UTF-8, carriage returns, NULs, long lines and no final newline,
    written in pieces: each of kb's streams is exactly the command's."""
    out = b"plain\n\x00\xff\xfe binary\r\nprogress 1%\rprogress 100%\r\n" + b"L" * 200_000 + b"\nno newline"
    err = b"warning: \xe9t\xe9\n" + b"E" * 70_000 + b"\npartial"
    code = ("import sys, time\n"
            f"out, err = {out!r}, {err!r}\n"
            "for i in range(0, max(len(out), len(err)), 7919):\n"
            "    sys.stdout.buffer.write(out[i:i + 7919]); sys.stdout.flush()\n"
            "    sys.stderr.buffer.write(err[i:i + 7919]); sys.stderr.flush()\n")
    (tmp_path / "writer.py").write_text(code)
    result = kb_run("--", PY, str(tmp_path / "writer.py"))
    assert result.returncode == 0
    assert result.stdout == out and result.stderr == err


def test_output_streams_as_it_comes() -> None:
    """A line is on kb's output while the command still runs (no buffering until the end)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    code = "import sys, time; sys.stdout.write('first\\n'); time.sleep(3); print('second')"  # no flush: unbuffered
    proc = subprocess.Popen([PY, "-m", "kb", "run", "--", PY, "-c", code], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        start = time.monotonic()
        assert proc.stdout is not None and proc.stdout.readline() == b"first\n"
        assert time.monotonic() - start < 2.5
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_interleaved_ranks_diagnosed() -> None:
    """Two ranks write their tracebacks in pieces, to both streams at once: the lines stay whole in the tail."""
    tb = KNOWN_TRACEBACK.splitlines(keepends=True)
    # pieces of both ranks' lines alternate between the streams before any line ends
    code = ("import sys\n"
            f"tb = {tb!r}\n"
            "for line in tb:\n"
            "    a, b = '[rank0]: ' + line, '[rank1]: ' + line\n"
            "    sys.stderr.write(a[:10]); sys.stderr.flush()\n"
            "    sys.stdout.write(b[:10]); sys.stdout.flush()\n"
            "    sys.stderr.write(a[10:]); sys.stderr.flush()\n"
            "    sys.stdout.write(b[10:]); sys.stdout.flush()\n"
            "sys.exit(1)\n")
    result = kb_run("--", PY, "-c", code)
    err = result.stderr.decode()
    assert result.returncode == 1
    diagnosis = err[err.index(SEPARATOR):]
    # both ranks print the same traceback and the streams race, so either rank may come first in the tail
    assert "KB0001 dtype-double-vs-float" in diagnosis and ("rank 0" in diagnosis or "rank 1" in diagnosis)


def test_tail_keeps_lines_of_each_stream_whole() -> None:
    tail = Tail()
    out, err = LineCapture(tail), LineCapture(tail)
    out.feed(b"[rank0]: Trace")
    err.feed(b"[rank1]: Traceback (most")
    out.feed(b"back (most recent call last):\n[rank0]:   File")
    err.feed(b" recent call last):\n")
    out.feed(b' "x.py", line 1\n')
    out.close()
    err.close()
    assert tail.data() == (b"[rank0]: Traceback (most recent call last):\n"
                           b"[rank1]: Traceback (most recent call last):\n"
                           b'[rank0]:   File "x.py", line 1\n')


def test_tail_is_bounded_and_keeps_the_end() -> None:
    tail = Tail(limit=100_000)
    capture = LineCapture(tail)
    for i in range(50_000):
        capture.feed(b"line %d\n" % i)
    capture.feed(b"x" * (MAX_LINE_BYTES * 3))  # an over-long line: its head is kept, the rest skipped
    capture.feed(b"\nlast\n")
    capture.close()
    data = tail.data()
    assert tail.size == len(data) <= 100_000 and tail.dropped > 0
    assert data.endswith(b"x" * MAX_LINE_BYTES + b"\nlast\n") and b"x" * (MAX_LINE_BYTES + 1) not in data
    first = data.split(b"\n", 1)[0]
    assert first.startswith(b"line ") and int(first[5:]) > 40_000  # whole lines, the latest ones


def test_exit_code_of_signals() -> None:
    assert exit_code(0) == 0 and exit_code(1) == 1 and exit_code(-9) == 137 and exit_code(-2) == 130


def _maxrss_kib(megabytes: int, tmp_path: Path) -> int:
    """kb run's own peak RSS (KiB) while a failing command prints ``megabytes`` MB."""
    printer = ("import sys\nline = b'x' * 99 + b'\\n'\nblock = line * 10000\n"
               f"for _ in range({megabytes}):\n    sys.stdout.buffer.write(block)\n"
               "sys.stderr.write('RuntimeError: " + KNOWN + "\\n'); sys.exit(1)\n")
    wrapper = ("import resource, sys\nfrom kb.cli import main\n"
               f"code = main(['run', '--', sys.executable, '-c', {printer!r}])\n"
               f"open({str(tmp_path / f'rss{megabytes}')!r}, 'w').write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))\n"
               "sys.exit(code)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run([PY, "-c", wrapper], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, timeout=120)
    assert result.returncode == 1 and b"KB0001" in result.stderr
    return int((tmp_path / f"rss{megabytes}").read_text())


def test_memory_is_bounded_for_large_output(tmp_path: Path) -> None:
    small = _maxrss_kib(1, tmp_path)
    large = _maxrss_kib(50, tmp_path)  # 50 MB through kb run
    assert large - small < 16 * 1024, (small, large)  # the 2 MiB tail, not the 50 MB


def test_ctrl_c_at_a_terminal_reaches_the_command_once(tmp_path: Path) -> None:
    """At a terminal, Ctrl-C reaches the command by itself (kb's process group): kb sends no second SIGINT,
    which would interrupt the command's clean-up (torchrun stopping its workers)."""
    pexpect = pytest.importorskip("pexpect", reason="pexpect (installed with IPython) drives the terminal")
    script = tmp_path / "count_sigints.py"
    script.write_text("import signal, sys, time\nn = [0]\n"
                      "signal.signal(signal.SIGINT, lambda s, f: n.__setitem__(0, n[0] + 1))\n"
                      "print('ready', flush=True)\n"
                      "while n[0] == 0:\n    time.sleep(0.05)\n"
                      "time.sleep(1)\nprint('sigints', n[0], flush=True)\nsys.exit(5)\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    term = pexpect.spawn(PY, ["-m", "kb", "run", "--", PY, str(script)], cwd=str(REPO), env=env,
                         encoding="utf-8", timeout=30)
    try:
        term.expect("ready")
        term.sendintr()
        term.expect(pexpect.EOF)
        output = term.before
    finally:
        term.close()
    assert "sigints 1" in output and SEPARATOR not in output
    assert term.exitstatus == 5


def test_torchrun_rank_failure_diagnosed(tmp_path: Path) -> None:
    """torchrun with two ranks (CPU; the script starts no process group): rank 1 fails with KB0001's error, torchrun exits 1
    after its own summary; kb run passes it all through and answers KB0001. Each rank writes its line in one write(2):
    print() under an unbuffered stdout writes the text and its newline apart, and the two ranks' pieces then interleave
    on the shared pipe ('rank 0 uprank 1 up', seen once under load). Rank 1 fails only after rank 0 has written its
    line (a file rank 0 leaves): under load rank 0 was once still importing torch when rank 1 failed, and torchrun
    stopped it before it wrote."""
    pytest.importorskip("torch")
    script = tmp_path / "train.py"
    up = tmp_path / "rank0-up"
    script.write_text("import os, time\nimport torch\nrank = int(os.environ['RANK'])\nos.write(1, f'rank {rank} up\\n'.encode())\n"
                      f"if rank == 0:\n    open({str(up)!r}, 'w').close()\n"
                      f"if rank == 1:\n    while not os.path.exists({str(up)!r}):\n        time.sleep(0.05)\n"
                      "    torch.zeros(2, 2, dtype=torch.float64) @ torch.zeros(2, 2)\ntime.sleep(2)\n")
    result = kb_run("--", PY, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", str(script),
                    timeout=120)
    err = result.stderr.decode()
    assert result.returncode == 1, err[-3000:]
    assert sorted(result.stdout.decode().splitlines()) == ["rank 0 up", "rank 1 up"]
    assert "ChildFailedError" in err[: err.index(SEPARATOR)]  # torchrun's own summary, passed through
    assert "KB0001 dtype-double-vs-float" in err[err.index(SEPARATOR):]


def test_the_pumps_leave_sigint_and_sigterm_to_the_main_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process-directed signal goes to any thread that does not block it: one given to a pump left the main thread
    asleep in wait() and the forward undone (CI at eb8a3d4), so the pumps block SIGINT and SIGTERM."""
    import kb.cli.run as run_module

    masks: list[set] = []
    original = run_module.pump

    def recording(*args: object) -> None:
        masks.append(set(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        original(*args)

    monkeypatch.setattr(run_module, "pump", recording)
    before = set(signal.pthread_sigmask(signal.SIG_BLOCK, []))
    assert run_module.run([PY, "-c", "print('x')"]) == 0
    assert len(masks) == 2 and all({signal.SIGINT, signal.SIGTERM} <= m for m in masks)
    assert set(signal.pthread_sigmask(signal.SIG_BLOCK, [])) == before  # the main thread's own mask is back
