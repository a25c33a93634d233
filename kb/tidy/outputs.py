"""The rules that run kb diagnose: on recorded outputs, examples and the dev set.

Every signature must be exercised: some recorded output (a case's ``evidence/*.log``), example
(``examples/*.txt``) or dev-set output (the checkout's ``tests/fixtures/diagnose/``, read only where
present) holds an error it matches, as kb diagnose scores it (message, type, frames, compare,
excludes). A recorded failing output must be answered by its own case among the cases alone, by no
other case, and within its family among everything; an example by what its manifest entry says.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from kb.diagnose.diagnosis import Diagnosis, diagnose_lines, within_match_budget
from kb.diagnose.match import score_error
from kb.knowledge.model import Case, Family, Knowledge, Signature
from kb.reproduce.evidence import EVIDENCE_DIR
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
    """The dev set's fixture files (the checkout's; none when it is absent)."""
    if manifest is None or not manifest.is_file():
        return [], []
    try:
        entries = tomllib.loads(manifest.read_text(encoding="utf-8")).get("entry", [])
        files = [manifest.parent / e["file"] for e in entries]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        return [], [Problem(str(manifest), "signature", f"the dev set cannot be read: {exc!r}")]
    return [Input(f, "dev") for f in files if f.is_file()], []


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
        for ex in manifest.examples:
            path = examples_dir / ex.file
            listed.add(ex.file)
            where = f"(examples/{manifest.path.name} example[{ex.index}])"
            expected = names.get(ex.expect) or names.get(ex.expect.upper())
            if expected is None and (ex.expect in unloaded or ex.expect.upper() in unloaded):
                continue
            if expected is None:
                problems.append(Problem(str(manifest.path), "example", f"example[{ex.index}]: expect {ex.expect!r} "
                                        "names no case (id or slug) or family"))
                continue
            if not path.is_file():
                problems.append(Problem(str(manifest.path), "example", f"example[{ex.index}]: no file {ex.file!r} "
                                        f"in {examples_dir}"))
                continue
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
                problems.append(Problem(str(path), "example", f"no [[example]] in examples/{manifest.path.name} "
                                        "says what kb diagnose should answer (file, expect)"))

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
    allowed: dict[SignatureKey, str] = {}
    problems = []
    for allowance in manifest.allowances if manifest is not None else []:
        where = f"unexercised[{allowance.index}]"
        entry = names.get(allowance.entry) or names.get(allowance.entry.upper())
        if entry is None and (allowance.entry in unloaded or allowance.entry.upper() in unloaded):
            continue
        if entry is None:
            problems.append(Problem(str(manifest.path), "signature", f"{where}: {allowance.entry!r} names no case "  # type: ignore[union-attr]
                                    "(id or slug) or family"))
            continue
        for name in allowance.signatures:
            key = (entry.kind, entry.key, name)
            if not any(s.name == name for s in entry.signatures):
                problems.append(Problem(str(manifest.path), "signature", f"{where}: {entry.key} has no "  # type: ignore[union-attr]
                                        f"signature {name!r}"))
            elif key in exercise.by:
                problems.append(Problem(str(manifest.path), "signature", f"{where}: {entry.key} signature "  # type: ignore[union-attr]
                                        f"{name!r} is exercised by {exercise.by[key]}: remove it from the list"))
            allowed[key] = allowance.reason
    for key, (entry, sig) in exercise.pending.items():
        if key in allowed:
            continue
        index = next(i for i, s in enumerate(entry.signatures) if s is sig)
        problems.append(Problem(entry.file, "signature",
                                f"signatures[{index}] {sig.name!r}: exercised by no recorded output, example or "
                                "dev-set output (record a run that raises it, add an example with its [[example]], "
                                "or say why under [[unexercised]] in examples/manifest.toml)"))
    return problems
