"""Helpers the runtime-NN test files share (tests/test_runtime38.py, tests/test_runtime39.py): a set of real tracebacks
printed by the failing programs of benchmarks/runtime_tracebacks/, labelled in its folder's labels.toml, each
fixture's first answer checked against its label."""

from __future__ import annotations

import tomllib
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devset_documents import NOT_READ, drift_gate_before, drift_gate_verdict
from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.examples import in_pending_set, pending_sets
from kb.knowledge.registry import load_knowledge

RUNTIME = Path(__file__).parent / "fixtures" / "diagnose"


@dataclass(frozen=True)
class Entry:
    """What the runtime tests read of an answer's case or family: its key, a case's ID and family."""

    key: str
    id: str | None
    family: str | None


@dataclass(frozen=True)
class Match:
    entry: Entry


@dataclass(frozen=True)
class Answered:
    """An answer as the runtime tests read it (``kind``, ``match.entry``): picklable, so that one pass of the run
    (``readings``) serves every worker."""

    kind: str
    match: Match


def diagnosis(text: str) -> Any:
    """``diagnose_lines`` over ``text`` with the loaded knowledge: what the runtime-NN and rt47 tests read."""
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge())


def top_answer(text: str) -> tuple[str, str] | None:
    """The first answer to ``text`` as (kind, a case's ID or a family's key), None when kb is silent."""
    answers = diagnosis(text).answers
    if not answers:
        return None
    entry = answers[0].match.entry
    return (answers[0].kind, entry.id if answers[0].kind == "case" else entry.key)


def readings() -> dict[Path, tuple[list[Answered] | str, str | None]]:
    """Every runtime-NN fixture (resolved path): ``(its answers, the API-drift gate's verdict)``, the answers of
    ``diagnose_lines`` over the file opened as strict UTF-8 (the traceback, a text, where that raised), the verdict
    tests/devset_documents.py's ``drift_gate_verdict`` on the same diagnosis for tests/test_startup_lazy.py (NOT_READ
    where the lines str.splitlines gives differ or diagnose raised: that test diagnoses the file itself). Computed once
    per run (tests/conftest.py runtime_readings): test_runtime38-44 and test_startup_lazy each diagnosed them."""
    knowledge = load_knowledge()
    pending = pending_sets(RUNTIME / "manifest.toml")  # (a set whose first score is pending is read by nothing)
    out: dict[Path, tuple[list[Answered] | str, str | None]] = {}
    for path in sorted(RUNTIME.glob("runtime-*/*.txt")):
        if path.parent.name in pending or in_pending_set(path, pending):
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                lines = list(handle)
            diagnosis = diagnose_lines(lines, knowledge)  # type: ignore[arg-type]
            answers = [Answered(a.kind, Match(Entry(a.match.entry.key, getattr(a.match.entry, "id", None),
                                                    getattr(a.match.entry, "family", None))))
                       for a in diagnosis.answers]
        except Exception:  # noqa: BLE001 - reported by the tests of this file
            out[path.resolve()] = (traceback.format_exc(), NOT_READ)
            continue
        try:
            same = "".join(lines).splitlines(keepends=True) == lines
            gate = drift_gate_verdict(diagnosis, knowledge, drift_gate_before(diagnosis, knowledge)) if same else NOT_READ
        except Exception:  # noqa: BLE001 - reported by test_startup_lazy's item for this file
            gate = traceback.format_exc()
        out[path.resolve()] = (answers, gate)
    return out


class RuntimeSet:
    """One runtime set: its folder, its labels.toml and their entries."""

    def __init__(self, name: str) -> None:
        self.folder = RUNTIME / name
        self.labels = tomllib.loads((self.folder / "labels.toml").read_text(encoding="utf-8"))
        self.entries: list[dict] = self.labels["label"]
        self.ids = [e["file"][:-4] for e in self.entries]

    def answers(self, name: str, shared: dict[Path, tuple[list[Answered] | str, str | None]]) -> list[Answered]:
        """The answers to fixture ``name`` from ``shared`` (``readings()``, tests/conftest.py runtime_readings)."""
        answers = shared[(self.folder / name).resolve()][0]
        if isinstance(answers, str):
            raise AssertionError(f"kb diagnose raised on {name}:\n{answers}")
        return answers

    def check_labelled(self, out_of_scope: bool = False) -> list[str]:
        """Every fixture is labelled once with a known family (or "none", out of scope, where the set has such
        fixtures: ``out_of_scope``), the set names its versions and has at least 60 fixtures; returns the labelled
        files."""
        files = [e["file"] for e in self.entries]
        assert sorted(files) == sorted(p.name for p in self.folder.glob("*.txt")) and len(set(files)) == len(files)
        known = {f.key for f in load_knowledge().families} | ({"none"} if out_of_scope else set())
        assert {e["family"] for e in self.entries} <= known
        assert self.labels["versions"]["transformers"] and len(self.entries) >= 60
        return files

    def check_fixture(self, entry: dict, shared: dict[Path, tuple[list[Answered] | str, str | None]],
                      silent: dict[str, str] | None = None, family_only: dict[str, str] | None = None) -> None:
        """The fixture's first answer is its label's family, and its case where the label names one (not for a file
        of ``family_only``); a file of ``silent`` may stay unanswered; a file labelled "none" (out of scope) must."""
        answers = self.answers(entry["file"], shared)
        if entry["family"] == "none":  # out of scope: kb must leave it unclaimed
            assert answers == [], [family(a) for a in answers]
            return
        if entry["file"] in (silent or {}):
            assert answers == [] or family(answers[0]) == entry["family"], [family(a) for a in answers]
            return
        assert answers, "no answer"
        assert family(answers[0]) == entry["family"], (entry["family"], family(answers[0]))
        if entry["case"] and entry["file"] not in (family_only or {}):
            assert answers[0].kind == "case" and answers[0].match.entry.id == entry["case"].split("-")[0], \
                (entry["case"], answers[0].kind, answers[0].match.entry.key)


def family(answer) -> str:  # noqa: ANN001 - an Answer
    """The family of an answer, a case's or a family's own."""
    entry = answer.match.entry
    return entry.family if answer.kind == "case" else entry.key
