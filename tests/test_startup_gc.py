"""`kb diagnose` run as the command starts with the cyclic collector off and turns it on before reading the input
(kb/cli/__init__.py: script, started_up); kb.cli.main called in-process never touches it."""

from __future__ import annotations

import gc
import io
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


def test_the_command_reads_the_input_with_the_collector_on(one_line: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))  # not this test process's objects
    monkeypatch.setattr("os._exit", exit_)
    monkeypatch.setattr(sys, "argv", ["kb", "diagnose", str(one_line)])
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert gc.isenabled()
    with pytest.raises(SystemExit) as exited:
        script()
    assert exited.value.code == 0
    assert seen == {"enabled while reading": True, "enabled at exit": True}
    assert frozen == [True] and kb.cli._paused == []
    assert gc.isenabled()


def test_main_in_process_leaves_the_collector_alone(one_line: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "disable", lambda: calls.append("disable"))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert main(["diagnose", str(one_line)]) == 0
    assert calls == [] and gc.isenabled()
