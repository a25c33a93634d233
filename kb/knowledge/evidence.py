"""Reading what a case folder holds beside case.md: its recorded runs (``evidence/``) and its programs.

Each recording is two files in the case's ``evidence/`` folder, named
``<reproduction>.<program>.<profile>``: a ``.json`` summary (outcome, date, GPU/CPU, library
versions, exception, measures) and a ``.log`` with the program's real combined output.
kb/reproduce/evidence.py writes them; everything else reads them here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kb.knowledge.model import Case, KnowledgeError

EVIDENCE_DIR = "evidence"


def evidence_stem(reproduction: str, program: str, profile: str) -> str:
    return f"{reproduction}.{program}.{profile}"


def observed(case: Case) -> list[dict[str, Any]]:
    """Every recorded run of ``case``, newest first (``file``: the JSON's path inside the case folder)."""
    folder = case.path / EVIDENCE_DIR
    if not folder.is_dir():
        return []
    runs = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise KnowledgeError(f"{path}: not a readable recorded run: {exc}") from None
        data["file"] = str(path.relative_to(case.path))
        runs.append(data)
    runs.sort(key=lambda r: r.get("date", ""), reverse=True)
    return runs


def recorded_logs(case: Case) -> list[Path]:
    folder = case.path / EVIDENCE_DIR
    return sorted(folder.glob("*.log")) if folder.is_dir() else []


def recorded_log(case: Case, name: str) -> str | None:
    """The text of ``evidence/<name>`` (a run's log), or None when there is no such file."""
    path = case.path / EVIDENCE_DIR / name
    if not name or not path.is_file():
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def case_file(case: Case, name: str) -> str:
    """The text of a file of the case folder (a failing or fixed program)."""
    try:
        return (case.path / name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KnowledgeError(f"{case.path / name}: cannot read: {exc}") from None


MATRIX_FILE = "matrix.toml"  # `kb verify`'s runs of the case on named library stacks (kb/reproduce/matrix.py writes it)


def matrix_runs(case: Case) -> list[dict[str, Any]]:
    """The entries of ``evidence/matrix.toml``, one per stack x reproduction, as written (none: [])."""
    path = case.path / EVIDENCE_DIR / MATRIX_FILE
    if not path.is_file():
        return []
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise KnowledgeError(f"{path}: not a readable matrix (TOML): {exc}") from None
    runs = data.get("runs", [])
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        raise KnowledgeError(f"{path}: `runs` must be an array of tables ([[runs]])")
    return runs
