"""`kb diagnose` on an out-of-memory log that the planner answers (issue 26, start-up, turn 45): the planner's tables
come from the index (kb/knowledge/indexed.py PLAN_TABLES: no TOML parsed), and kb/plan's modules import neither typing,
json nor pathlib for it, as they read none of their users' files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kb.knowledge import tables
from kb.knowledge.indexed import LAZY_TABLES, PLAN_TABLES
from kb.knowledge.model import KnowledgeError

REPO = Path(__file__).resolve().parent.parent
OOM = REPO / "examples" / "qwen14b-4bit-t4-oom-traceback.txt"


def test_the_planners_tables_are_among_the_indexed_ones_as_read() -> None:
    found = tables.small_tables()
    for name in PLAN_TABLES:
        assert found[name] == tables.read_table_file(tables.table_path(name))  # as the file reads, not validated
        assert name in LAZY_TABLES  # (decoded only when the planner reads them)
    assert set(tables.VALIDATED) < set(found)


def test_a_planners_table_that_is_missing_or_broken_is_left_out(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    """The index still builds; read_table says what is wrong where the planner reads the table, as before."""
    real_path, real_read = tables.table_path, tables._read_table

    def path(name: str) -> str:
        return str(tmp_path / "gone.toml") if name == "plan-models" else real_path(name)

    def read(name: str) -> dict:
        if name == "plan-cases":
            raise KnowledgeError("tables/plan-cases.toml: not valid TOML")
        return real_read(name)

    monkeypatch.setattr(tables, "table_path", path)
    monkeypatch.setattr(tables, "_read_table", read)
    found = tables.small_tables()
    assert "plan-models" not in found and "plan-cases" not in found
    assert "plan-names" in found and set(tables.VALIDATED) <= set(found)


def test_an_oom_log_that_plans_parses_no_toml_and_imports_no_typing_json_or_pathlib(tmp_path: Path) -> None:
    code = ("import io, contextlib, json, sys\n"
            "before = set(sys.modules)\n"
            "from kb.cli import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            f"    main(['diagnose', '--format', 'json', {str(OOM)!r}])\n"
            "plan = [m for m in json.loads(out.getvalue())['matches'] if m.get('plan')]\n"
            "print(bool(plan), ' '.join(sorted(m for m in set(sys.modules) - before\n"
            "                                  if m in ('tomllib', 'typing', 'pathlib') or m.startswith('kb.plan'))))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update({"PYTHONPATH": str(REPO), "KB_CACHE_DIR": str(tmp_path / "cache")})
    for _ in range(2):  # the first run builds the index (and parses the tables); the second reads it, as users' runs do
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
    planned, *imported = proc.stdout.split()
    assert planned == "True"  # the planner answered (its modules ran)
    assert "kb.plan.quick" in imported
    assert not {"tomllib", "typing", "pathlib"} & set(imported)
