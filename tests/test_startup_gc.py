"""`kb diagnose` run as the command starts with the cyclic collector off and turns it on before reading the input,
unless the input is a file of at most one block (kb/cli/__init__.py: script, started_up); kb.cli.main called in-process
never touches it."""

from __future__ import annotations

import gc
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kb.cli
from kb.cli import main, script

ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    """Whatever a failing test leaves, the collector is on afterwards (other tests run in this process)."""
    yield
    kb.cli._paused.clear()
    gc.enable()


@pytest.fixture
def one_line(tmp_path: Path) -> Path:
    path = tmp_path / "one.txt"
    path.write_text(ONE_LINE)
    return path


def _run_script(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, object], list[bool]]:
    """script() run in-process on ``argv`` as the `kb` command runs it: whether the collector was on while the input
    was read and at the exit, and gc.freeze's calls (not made: this test process's objects)."""
    seen: dict[str, object] = {}
    frozen: list[bool] = []
    import kb.diagnose.diagnosis as diagnosis

    reader = diagnosis.diagnose_reader

    def diagnose_reader(*args: object, **kwargs: object) -> object:
        seen["enabled while reading"] = gc.isenabled()
        return reader(*args, **kwargs)

    def exit_(code: int) -> None:
        seen["enabled at exit"] = gc.isenabled()
        raise SystemExit(code)

    monkeypatch.setattr(diagnosis, "diagnose_reader", diagnose_reader)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr("os._exit", exit_)
    monkeypatch.setattr(sys, "argv", ["kb", *argv])
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert gc.isenabled()
    with pytest.raises(SystemExit) as exited:
        script()
    assert exited.value.code == 0
    assert kb.cli._paused == []
    return seen, frozen


def test_the_command_reads_a_long_file_with_the_collector_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.diagnose.input import BLOCK_BYTES

    long = tmp_path / "long.txt"
    long.write_text(("step 1 loss 2.0 " * 64 + "\n") * (BLOCK_BYTES // 1024 + 1) + ONE_LINE)
    seen, frozen = _run_script(["diagnose", str(long)], monkeypatch)
    assert seen == {"enabled while reading": True, "enabled at exit": True}
    assert frozen == [True]


def test_the_command_reads_a_pipe_with_the_collector_on(monkeypatch: pytest.MonkeyPatch) -> None:
    read, write = os.pipe()
    os.write(write, ONE_LINE.encode())
    os.close(write)
    with os.fdopen(read, "r") as pipe:  # standard input a pipe: how long it is is not known before it is read
        monkeypatch.setattr(sys, "stdin", pipe)
        seen, frozen = _run_script(["diagnose", "-"], monkeypatch)
    assert seen == {"enabled while reading": True, "enabled at exit": True}
    assert frozen == [True]


def test_a_file_of_one_block_is_read_with_the_collector_off(one_line: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(turn 42) A file of at most one block (1 MiB) is diagnosed with the collector still off, to the exit: its
    young-generation passes were 0.05-0.2 ms of a one-line run; what such a run could leave is bounded by the input."""
    seen, frozen = _run_script(["diagnose", str(one_line)], monkeypatch)
    assert seen == {"enabled while reading": False, "enabled at exit": False}
    assert frozen == []
    gc.enable()
    with one_line.open() as redirected:  # standard input redirected from the file: the same
        monkeypatch.setattr(sys, "stdin", redirected)
        seen, frozen = _run_script(["diagnose", "-"], monkeypatch)
    assert seen == {"enabled while reading": False, "enabled at exit": False}


def test_fits_one_block(one_line: Path, tmp_path: Path) -> None:
    from kb.diagnose.input import BLOCK_BYTES, fits_one_block

    exact = tmp_path / "exact.txt"
    exact.write_bytes(b"x" * (BLOCK_BYTES - 1) + b"\n")
    over = tmp_path / "over.txt"
    over.write_bytes(b"x" * BLOCK_BYTES + b"\n")
    assert fits_one_block(str(one_line)) and fits_one_block(str(exact))
    assert not fits_one_block(str(over))
    assert not fits_one_block(str(tmp_path))  # a folder
    assert not fits_one_block(str(tmp_path / "missing.txt"))


# every 25th dev-set fixture and the examples (a pending set's fixtures are not in the worktree while it is sealed)
_SAMPLE = (sorted((Path(__file__).parent / "fixtures" / "diagnose").rglob("*.txt"))[::25]
           + sorted((Path(__file__).parent.parent / "examples").glob("*.txt")))


def test_a_diagnosis_leaves_no_cyclic_garbage() -> None:
    """Why a short input may be read with the collector off (started_up): diagnosing, building the document and the
    text leave nothing only the cyclic collector could free (the whole dev set and a 20 MB noisy log: none, turn 42).
    A change that makes cycles per input fails here."""
    from kb.cli.output import Style
    from kb.render.sanitize import sanitize_data
    from kb.diagnose.diagnosis import diagnose_reader
    from kb.diagnose.document import diagnosis_document
    from kb.diagnose.input import UnusableInput, open_input
    from kb.knowledge.index import load_index
    from kb.render.diagnosis import format_diagnosis

    knowledge = load_index()

    def run(path: Path) -> None:
        try:
            doc = diagnosis_document(diagnose_reader(open_input(str(path)), knowledge, None))
        except UnusableInput:
            return
        format_diagnosis(sanitize_data(doc), width=80, full=False, style=Style(io.StringIO()))

    assert len(_SAMPLE) > 50
    run(_SAMPLE[0])  # (the modules diagnose imports lazily: an import may leave cycles of its own)
    gc.collect()
    gc.disable()
    left = {}
    for path in _SAMPLE:
        run(path)
        found = gc.collect(0)  # (with the collector off, all the run made is in the young generation)
        if found:
            left[path.name] = found
    assert left == {}


def test_main_in_process_leaves_the_collector_alone(one_line: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "disable", lambda: calls.append("disable"))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert main(["diagnose", str(one_line)]) == 0
    assert calls == [] and gc.isenabled()
