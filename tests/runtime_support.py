"""Helpers the runtime-NN test files share (tests/test_runtime38.py, tests/test_runtime39.py): a set of real tracebacks
printed by the failing programs of benchmarks/runtime_tracebacks/, labelled in its folder's labels.toml, each
fixture's first answer checked against its label."""

from __future__ import annotations

import tomllib
from pathlib import Path

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

RUNTIME = Path(__file__).parent / "fixtures" / "diagnose"


class RuntimeSet:
    """One runtime set: its folder, its labels.toml and their entries."""

    def __init__(self, name: str) -> None:
        self.folder = RUNTIME / name
        self.labels = tomllib.loads((self.folder / "labels.toml").read_text(encoding="utf-8"))
        self.entries: list[dict] = self.labels["label"]
        self.ids = [e["file"][:-4] for e in self.entries]

    def answers(self, name: str) -> list:
        with open(self.folder / name, encoding="utf-8") as handle:
            return diagnose_lines(handle, load_knowledge()).answers

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

    def check_fixture(self, entry: dict, silent: dict[str, str] | None = None,
                      family_only: dict[str, str] | None = None) -> None:
        """The fixture's first answer is its label's family, and its case where the label names one (not for a file
        of ``family_only``); a file of ``silent`` may stay unanswered; a file labelled "none" (out of scope) must."""
        answers = self.answers(entry["file"])
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
