"""Issue 26, turn 49's hostile-input audit (benchmarks/results/audit-turn49.txt): what was still broken, as regressions.

- Standard error closed (`2>&-`): kb's messages went to standard output (print(file=None) writes there): an error
  line where a JSON reader expected the document, `kb run`'s diagnosis mixed into the command's output.
- `kb run` and `kb verify` named themselves "kb" in the closed-output message.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
KB = f"{shlex.quote(sys.executable)} -m kb"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


def shell(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "KB_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run(["sh", "-c", command], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [
    "diagnose /nonexistent-audit49.log --format json",
    "show no-such-case-audit49 --format json",
    "plan --gpu-gib x --format json",
    "env --config /nonexistent-audit49.json --format json",
])
def test_standard_error_closed_keeps_messages_out_of_standard_output(args: str, tmp_path: Path) -> None:
    done = shell(f"{KB} {args} 2>&-", tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""  # (was: "kb diagnose: /nonexistent-audit49.log: no such file" on standard output)


def test_kb_run_with_standard_error_closed_writes_only_the_commands_output(tmp_path: Path) -> None:
    script = f"echo out-line; echo {shlex.quote(OOM)} >&2; exit 1"
    done = shell(f"{KB} run -- sh -c {shlex.quote(script)} 2>&-", tmp_path)
    assert done.returncode == 1
    assert done.stdout == "out-line\n"  # (was: the command's error line and kb's diagnosis too)


def test_a_closed_standard_error_is_not_reused_by_what_kb_opens(tmp_path: Path) -> None:
    """With descriptor 2 closed, the next file kb opens got it; /dev/null holds it now."""
    probe = ("import os, sys; from kb.cli import main; "
             "code = main(['list']); "
             "fd = os.open(os.devnull, os.O_RDONLY); print('next', fd, file=sys.__stdout__); sys.exit(code)")
    done = shell(f"{shlex.quote(sys.executable)} -c {shlex.quote(probe)} 2>&- | tail -1", tmp_path)
    assert done.stdout.split()[0] == "next" and int(done.stdout.split()[1]) > 2


def test_standard_input_closed_still_says_so(tmp_path: Path) -> None:
    done = shell(f"{KB} diagnose - <&-", tmp_path)
    assert done.returncode == 2 and "standard input is closed" in done.stderr and done.stdout == ""


@pytest.mark.parametrize("command", ["run -- true", "verify --stack lowest"])
def test_run_and_verify_name_themselves_when_the_output_is_closed(command: str, tmp_path: Path) -> None:
    done = shell(f"{KB} {command} >&-", tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"kb {command.split()[0]}: cannot write the output")


# ---- kb verify's folder of venvs (kb/reproduce/matrix.py): P1/P2 where the other caches had been fixed

def _stacks_root(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Path | None:
    from kb.reproduce import matrix

    for name in ("KB_STACKS_DIR", "KB_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return matrix.stacks_root()


def test_an_empty_or_relative_home_gives_no_stacks_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _stacks_root({"HOME": ""}, monkeypatch) is None  # (was /.cache/kb/stacks)
    assert _stacks_root({"HOME": "rel/home"}, monkeypatch) is None  # (was rel/home/.cache/kb/stacks)
    assert _stacks_root({"HOME": "/h", "XDG_CACHE_HOME": "/x"}, monkeypatch) == Path("/x/kb/stacks")  # (was /h/...)
    assert _stacks_root({"HOME": "/h", "XDG_CACHE_HOME": "rel"}, monkeypatch) == Path("/h/.cache/kb/stacks")
    assert _stacks_root({"KB_STACKS_DIR": "/s"}, monkeypatch) == Path("/s")


def _ensure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """ensure_stack on ``root`` with the venv's build and probe replaced (no pip, no network): what was built."""
    from kb.reproduce import matrix

    built: list[str] = []
    monkeypatch.setenv("KB_STACKS_DIR", str(root))
    def build(stack: Any, folder: Path, *rest: Any) -> None:
        folder.mkdir(parents=True)  # (fails when the old folder was not cleared first)
        built.append(str(folder))

    monkeypatch.setattr(matrix, "build_venv", build)
    monkeypatch.setattr(matrix, "probe", lambda python, names: ({"python": "3"}, set(), None))
    matrix.ensure_stack(matrix.Stack("lowest", "", ("torch==2.4.1",)), [], say=lambda line: None)
    return built


@pytest.mark.parametrize("stamp", [b'{"packages": [', b"\xff\xfe", b"[1, 2]", b""])
def test_a_broken_stamp_rebuilds_the_venv(stamp: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "stacks"
    (root / "lowest").mkdir(parents=True, mode=0o700)
    root.chmod(0o700)
    (root / "lowest" / "kb-stack.json").write_bytes(stamp)
    assert _ensure(tmp_path, monkeypatch, root) == [str(root / "lowest")]  # (was a JSONDecodeError's traceback)


def test_a_stacks_folder_others_can_write_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.reproduce.matrix import StackError

    root = tmp_path / "shared"
    (root / "lowest" / "bin").mkdir(parents=True)
    root.chmod(0o777)  # another user could have planted lowest/bin/python and its stamp
    (root / "lowest" / "kb-stack.json").write_text('{"packages": ["torch==2.4.1"]}\n')
    with pytest.raises(StackError, match="not a folder of this user's"):
        _ensure(tmp_path, monkeypatch, root)  # (was: the planted venv's python run)


def test_a_venv_whose_probe_prints_no_report_is_a_stack_error(tmp_path: Path) -> None:
    from kb.reproduce.matrix import StackError, probe

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho not json\n")
    fake.chmod(0o700)
    with pytest.raises(StackError, match="cannot read its packages"):
        probe(fake, [])  # (was a JSONDecodeError's traceback)


# ---- the notebook API's width (kb/notebook/result.py)

@pytest.mark.parametrize("width, error", [(float("nan"), TypeError), ("80", TypeError), (None, TypeError),
                                          (2.5, TypeError), (True, TypeError), (0, ValueError), (-5, ValueError)])
def test_the_notebook_width_is_a_whole_number_of_columns(width: Any, error: type[Exception]) -> None:
    import kb

    with pytest.raises(error, match="width"):  # (was "slice indices must be integers", or 0 and -5 taken)
        kb.diagnose_text(OOM, width=width)
    with pytest.raises(error, match="width"):
        kb.diagnose_exception(RuntimeError("CUDA out of memory"), width=width)


def test_a_notebook_width_of_one_column_or_a_huge_one_works() -> None:
    import kb

    for width in (1, 40, 10**20):
        assert kb.diagnose_text(OOM, width=width).top == "cuda-oom"


def test_kb_run_of_an_empty_command_name_is_not_found(tmp_path: Path) -> None:
    done = shell(f"{KB} run -- '' arg", tmp_path)
    assert done.returncode == 127  # as a shell says for "" (was 126, "cannot run : Permission denied")
    assert done.stderr == "kb run: command not found: the command's name is empty\n"


def test_plan_list_models_in_json_is_json(tmp_path: Path) -> None:
    import json

    done = shell(f"{KB} plan --list-models --format json", tmp_path)
    assert done.returncode == 0
    models = json.loads(done.stdout)["models"]  # (was the text table)
    assert {"id": "qwen2.5-7b", "hub_id": "Qwen/Qwen2.5-7B-Instruct"} in models
    text = shell(f"{KB} plan --list-models", tmp_path).stdout.splitlines()
    assert [m["id"] for m in models] == [line.split()[0] for line in text]


@pytest.mark.parametrize("args, command", [("diagnose /dev/null --bogus", "diagnose"), ("list extra", "list"),
                                           ("show KB0001 extra --format json", "show")])
def test_an_unrecognized_argument_is_said_by_its_command(args: str, command: str, tmp_path: Path) -> None:
    done = shell(f"{KB} {args}", tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"kb {command}: unrecognized arguments: ")  # (was "kb: ...")
    assert done.stderr.endswith(f"(kb {command} --help)\n")


def test_plan_config_of_a_folder_without_config_json_names_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "my-model"
    folder.mkdir()
    done = shell(f"{KB} plan --config {shlex.quote(str(folder))}", tmp_path)
    assert done.returncode == 2  # (was "kb plan: config 'config.json' not found")
    assert done.stderr == "kb plan: --config 'my-model' is a folder without a config.json\n"


@pytest.mark.parametrize("redirect, why", [(">/dev/full", "No space left on device"),
                                           ("1</dev/null", "Bad file descriptor")])
def test_kb_run_says_when_its_output_cannot_be_written(redirect: str, why: str, tmp_path: Path) -> None:
    done = shell(f"{KB} run -- sh -c 'echo hi; exit 0' {redirect}", tmp_path)
    assert done.returncode == 2  # (was 0 and nothing said: the command's output went nowhere)
    assert done.stderr == f"kb run: cannot write the output: {why}\n"


def test_kb_run_with_its_output_lost_still_diagnoses_a_failed_command(tmp_path: Path) -> None:
    script = f"echo {shlex.quote(OOM)}; exit 1"
    done = shell(f"{KB} run -- sh -c {shlex.quote(script)} >/dev/full", tmp_path)
    assert done.returncode == 1  # the command's code
    assert done.stderr.startswith("kb run: cannot write the output: No space left on device\n")
    assert "cuda-oom" in done.stderr  # what could not be written is diagnosed all the same


def test_kb_run_into_a_closed_pipe_is_unchanged(tmp_path: Path) -> None:
    done = shell(f"{KB} run -- sh -c 'seq 1 200000; exit 0' | head -1", tmp_path)
    assert done.returncode == 0 and done.stdout == "1\n" and done.stderr == ""
