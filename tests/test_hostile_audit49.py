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
