"""Recording runs: what a reproduction did on real hardware, written by the runner.

Each recording is two files in the case's ``evidence/`` folder (the layout is kb/knowledge/evidence.py's,
which reads them). Later runs of the same triple replace them; git keeps the history.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kb
from kb.knowledge.evidence import EVIDENCE_DIR, evidence_stem, observed, recorded_logs  # noqa: F401 - read there, written here
from kb.knowledge.model import Case
from kb.reproduce.profiles import get_profile
from kb.reproduce.result import RunResult

REPO_ROOT = Path(kb.REPO_ROOT)


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
