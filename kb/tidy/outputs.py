"""The rules that run kb diagnose: on recorded outputs, examples and the dev set.

Every signature must be exercised: some recorded output (a case's ``evidence/*.log``), example
(``examples/*.txt``) or dev-set output (the checkout's ``tests/fixtures/diagnose/``, read only where
present) holds an error it matches, as kb diagnose scores it (message, type, frames, compare,
excludes). A recorded failing output must be answered by its own case among the cases alone, by no
other case, and within its family among everything; an example by what its manifest entry says.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kb.diagnose.diagnosis import Diagnosis, diagnose_lines, within_match_budget
from kb.diagnose.match import score_error
from kb.knowledge.examples import load_examples, pending_sets
from kb.knowledge.model import Case, Family, Knowledge, KnowledgeError, Signature
from kb.knowledge.evidence import EVIDENCE_DIR
from kb.tidy.examples import Manifest
from kb.tidy.problem import Problem

Entry = Case | Family
SignatureKey = tuple[str, str, str]  # (kind, key, signature name): ("case", "KB0001", "mat1-mat2-double")


@dataclass(frozen=True)
class Input:
    path: Path
    kind: str  # "recorded" | "example" | "dev"


def diagnose_file(path: Path, knowledge: Knowledge) -> Diagnosis:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return diagnose_lines(handle, knowledge)


def describe(diagnosis: Diagnosis) -> str:
    if not diagnosis.answers:
        return "nothing"
    top = diagnosis.answers[0].match.entry
    return f"case {top.id} {top.slug}" if top.kind == "case" else f"family {top.key}"


def failing_logs(case: Case) -> list[Path]:
    """The logs of the case's recorded failing runs that raised (silent failures record measures instead)."""
    folder = case.path / EVIDENCE_DIR
    logs = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            run = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue  # the runs rule reports it
        if isinstance(run, dict) and run.get("program") == "failing" and run.get("exception") and run.get("log"):
            log = folder / str(run["log"])
            if log.is_file():
                logs.append(log)
    return logs


def dev_inputs(manifest: Path | None) -> tuple[list[Input], list[Problem]]:
    """The dev set's fixture files (the checkout's; none when it is absent), less the sets whose first score is
    pending (kb.knowledge.examples.pending_sets)."""
    if manifest is None or not manifest.is_file():
        return [], []
    try:
        entries = load_examples(manifest)
    except KnowledgeError as exc:
        return [], [Problem(str(manifest), "signature", f"the dev set cannot be read: {exc}")]
    pending = pending_sets(manifest)
    return [Input(Path(e["path"]), "dev") for e in entries if e.get("set") not in pending], []


class Exercise:
    """Which signatures the inputs exercise, and the first input that does for each."""

    def __init__(self, entries: list[Entry]) -> None:
        self.pending: dict[SignatureKey, tuple[Entry, Signature]] = {
            (e.kind, e.key, s.name): (e, s) for e in entries for s in e.signatures
        }
        self.by: dict[SignatureKey, Path] = {}

    def feed(self, diagnosis: Diagnosis, source: Path) -> None:
        if not self.pending:
            return
        typed = within_match_budget([e for e in diagnosis.errors if e.type or e.message], diagnosis.root_error)
        if not typed:
            return
        for key, (entry, sig) in list(self.pending.items()):
            if any(score_error(entry, sig, err, diagnosis.environment, diagnosis.root_error) for err in typed):
                self.by[key] = source
                del self.pending[key]


def _entry_names(cases: list[Case], families: list[Family]) -> dict[str, Entry]:
    names: dict[str, Entry] = {}
    for c in cases:
        names[c.id] = names[c.slug] = c
    for f in families:
        names[f.name] = f
    return names


def output_problems(cases: list[Case], families: list[Family], knowledge: Knowledge, examples_dir: Path | None,
                    manifest: Manifest | None, dev_manifest: Path | None,
                    unloaded: frozenset[str] | set[str] = frozenset(),
                    judge_signatures: bool = True) -> tuple[list[Problem], int]:
    """The ``recorded``, ``example`` and ``signature`` rules; also the number of inputs read. ``unloaded``:
    ids, slugs and family names of files that did not load (their schema problem is enough).
    ``judge_signatures`` False: the signature rule is left out (and the dev set not read)."""
    problems: list[Problem] = []
    exercise = Exercise([*cases, *families] if judge_signatures else [])
    cases_only = Knowledge(tuple(cases), (), {})
    read = 0

    # recorded outputs: every log feeds the exercise; failing runs that raised are also judged
    for case in cases:
        failing = set(failing_logs(case))
        folder = case.path / EVIDENCE_DIR
        for log in sorted(folder.glob("*.log")) if folder.is_dir() else []:
            diagnosis = diagnose_file(log, knowledge)
            read += 1
            exercise.feed(diagnosis, log)
            if log not in failing:
                continue
            if not diagnosis.answers or diagnosis.answers[0].family != case.family:
                problems.append(Problem(str(log), "recorded", f"kb diagnose answers {describe(diagnosis)} first, "
                                        f"not within the case's family {case.family}"))
            own = diagnose_file(log, cases_only)
            matched = [a.match.entry.key for a in own.answers]
            if not matched or matched[0] != case.id:
                problems.append(Problem(str(log), "recorded", f"among the cases, {matched[0] if matched else 'none'} "
                                        f"answers first, not {case.id} (its own recorded failure)"))
            others = [m for m in matched if m != case.id]
            if others:
                problems.append(Problem(str(log), "recorded", f"also matched by {', '.join(others)}: make their "
                                        f"signatures more specific (this is {case.id}'s recorded failure)"))

    # examples: each one answered as its manifest entry says; every examples/*.txt has an entry
    names = _entry_names(cases, families)
    if examples_dir is not None and manifest is not None:
        listed = set()
        for i, ex in enumerate(manifest.examples):
            listed.add(ex["file"])
            where = f"(examples/{manifest.path.name} entry[{i}])"
            key = ex["expect"] if ex["expect"] != "none" else ex["family"]
            expected = names.get(key)
            if expected is None and key in unloaded:
                continue
            if expected is None:
                problems.append(Problem(str(manifest.path), "example", f"entry[{i}]: expect {ex['expect']!r} and "
                                        f"family {ex['family']!r} name no case slug or family"))
                continue
            path = Path(ex["path"])
            diagnosis = diagnose_file(path, knowledge)
            read += 1
            exercise.feed(diagnosis, path)
            top = diagnosis.answers[0].match.entry if diagnosis.answers else None
            if top is not expected:
                want = f"case {expected.id} {expected.slug}" if expected.kind == "case" else f"family {expected.key}"
                problems.append(Problem(str(path), "example", f"kb diagnose answers {describe(diagnosis)} first, "
                                        f"not {want} {where}"))
        for path in sorted(examples_dir.glob("*.txt")) if examples_dir.is_dir() else []:
            if path.name not in listed:
                problems.append(Problem(str(path), "example", f"no [[entry]] in examples/{manifest.path.name} "
                                        "says what kb diagnose should answer (file, source, expect, family)"))

    # the dev set: exercises signatures only (benchmarks/diagnose_devset.py scores its labels)
    dev, dev_problems = dev_inputs(dev_manifest) if judge_signatures else ([], [])
    problems += dev_problems
    for item in dev:
        if not exercise.pending:
            break
        exercise.feed(diagnose_file(item.path, knowledge), item.path)
        read += 1

    if judge_signatures:
        problems += signature_problems(exercise, manifest, names, unloaded)
    return problems, read


def signature_problems(exercise: Exercise, manifest: Manifest | None, names: dict[str, Entry],
                       unloaded: frozenset[str] | set[str] = frozenset()) -> list[Problem]:
    """A signature nothing exercises fails unless its ``unexercised`` field says why; one that says so
    while something exercises it fails too (the allowances only shrink)."""
    problems = []
    entries = {id(e): e for e in names.values()}.values()
    for entry in entries:
        for index, sig in enumerate(entry.signatures):
            key = (entry.kind, entry.key, sig.name)
            reason = (sig.raw.get("unexercised") or "").strip()
            if key in exercise.pending and not reason:
                problems.append(Problem(entry.file, "signature",
                                        f"signatures[{index}] {sig.name!r}: exercised by no recorded output, example or "
                                        "dev-set output (record a run that raises it, add a real output holding it to "
                                        "examples/, or say why in the signature's `unexercised`)"))
            elif key in exercise.by and reason:
                problems.append(Problem(entry.file, "signature",
                                        f"signatures[{index}] {sig.name!r} is exercised by {exercise.by[key]}: remove "
                                        "its `unexercised`"))
    return problems
