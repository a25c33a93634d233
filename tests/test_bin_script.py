"""bin/kb, the command a wheel installs: it takes its own folder off the module path before importing kb.

Python puts a script's folder first on ``sys.path``. For the installed command that is an environment's bin/
(hundreds of commands, listed whole by the first import that looks there), and a file there named like a module
kb imports would be imported instead of it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


def _run(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    env["PYTHONPATH"] = str(REPO)  # kb itself, as an installed package would be found
    return subprocess.run(
        [sys.executable, str(script), *args], input=ONE_LINE, capture_output=True, text=True, env=env, timeout=60
    )


def test_a_module_beside_the_command_does_not_shadow_one_kb_imports(tmp_path: Path) -> None:
    script = tmp_path / "kb"
    shutil.copyfile(REPO / "bin" / "kb", script)
    for name in ("json", "textwrap"):  # imported by `kb diagnose --format json` / text wrapping, after start-up
        (tmp_path / f"{name}.py").write_text("raise SystemExit('shadowed: the script folder was on sys.path')\n")
    done = _run(script, "diagnose", "--format", "json")
    assert "shadowed" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["matches"][0]["family"] == "dtype-mismatch"


def test_the_same_script_without_the_removal_would_be_shadowed(tmp_path: Path) -> None:
    """The check above can fail: a copy of bin/kb whose removal is cut out imports the planted module."""
    text = (REPO / "bin" / "kb").read_text()
    cut = text.replace("del sys.path[0]", "pass")
    assert cut != text
    script = tmp_path / "kb"
    script.write_text(cut)
    (tmp_path / "json.py").write_text("raise SystemExit('shadowed: the script folder was on sys.path')\n")
    done = _run(script, "diagnose", "--format", "json")
    assert "shadowed" in done.stdout + done.stderr
