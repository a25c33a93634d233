"""Recorded runs: what a reproduction did on real hardware, written by the runner.

Each recording is two files in the case's ``evidence/`` folder, named
``<reproduction>.<program>.<profile>``: a ``.json`` summary (outcome, date,
GPU/CPU, library versions, exception, measures) and a ``.log`` with the
program's real combined output. Later runs of the same triple replace them;
git keeps the history.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kb
from kb.knowledge.model import Case
from kb.reproduce.profiles import get_profile
from kb.reproduce.result import RunResult

REPO_ROOT = Path(kb.REPO_ROOT)

EVIDENCE_DIR = "evidence"


def evidence_stem(reproduction: str, program: str, profile: str) -> str:
    return f"{reproduction}.{program}.{profile}"


def gpu_summary(gpus: list[dict[str, Any]]) -> str | None:
    names = [g.get("name") for g in gpus if g.get("name")]
    if not names:
        return None
    first = names[0]
    return first if len(names) == 1 else f"{len(names)}x {first}" if len(set(names)) == 1 else ", ".join(names)


def _relative(text: str) -> str:
    return text.replace(str(REPO_ROOT) + "/", "")


def record(case: Case, result: RunResult) -> Path:
    """Write ``result`` into the case folder; returns the JSON path."""
    folder = case.path / EVIDENCE_DIR
    folder.mkdir(exist_ok=True)
    stem = evidence_stem(result.reproduction, result.program, result.profile)
    env = result.environment()
    profile = get_profile(result.profile)
    summary = {
        "case": case.id,
        "slug": case.slug,
        "reproduction": result.reproduction,
        "program": result.program,
        "profile": result.profile,
        "emulated": profile.emulates or None,
        "outcome": result.outcome,
        "passed": result.passed,
        "explanation": result.explanation,
        "date": result.date,
        "duration_s": result.duration_s,
        "exit_code": result.exit_code,
        "gpu": gpu_summary(env.get("gpus", [])),
        "gpus": env.get("gpus", []),
        "cpu": env.get("cpu"),
        "platform": env.get("platform"),
        "versions": env.get("versions", {}),
        "pins": env.get("pins"),  # a pinned reproduction (kb/pinned.py): the pins and where they were imported from
        "pinned_imported_from": env.get("pinned_imported_from"),
        "exception": result.exception(),
        "measures": result.measures,
        "memory_cap": next((r["memory_cap"] for r in result.ranks if r.get("memory_cap")), None),
        "command": [_relative(part) for part in result.command],
        "log": f"{stem}.log",
    }
    (folder / f"{stem}.log").write_text(result.output, encoding="utf-8")
    path = folder / f"{stem}.json"
    path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def observed(case: Case) -> list[dict[str, Any]]:
    """Every recorded run of ``case``, newest first."""
    folder = case.path / EVIDENCE_DIR
    if not folder.is_dir():
        return []
    runs = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["file"] = str(path.relative_to(case.path))
        runs.append(data)
    runs.sort(key=lambda r: r.get("date", ""), reverse=True)
    return runs


def recorded_logs(case: Case) -> list[Path]:
    folder = case.path / EVIDENCE_DIR
    return sorted(folder.glob("*.log")) if folder.is_dir() else []
