"""The rules about one case folder: registry, placeholders, recorded runs, the fix snippet."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kb.knowledge.load import ID_PATTERN, REQUIRED_SECTIONS, SLUG_PATTERN
from kb.knowledge.model import CASE_FILE, Case
from kb.knowledge.scaffold import PLACEHOLDERS
from kb.reproduce.evidence import EVIDENCE_DIR, evidence_stem
from kb.reproduce.profiles import PROFILES
from kb.tidy.problem import Problem
from kb.tidy.snippets import fix_code_problems, snippet_problem
from kb.tidy.templates import template_problems

# A placeholder as a word of its own: "TODO" but not "TODOS" or "MY_TODO".
PLACEHOLDER = re.compile("|".join(rf"(?<![\w]){re.escape(p)}(?![\w])" for p in PLACEHOLDERS))
# What the runner writes into every evidence JSON (kb/reproduce/evidence.py record()).
EVIDENCE_KEYS = ("case", "reproduction", "program", "profile", "outcome", "date", "versions", "log")


# A program that sets environment variables (or points the libraries at a local Hub) before importing them.
SETS_ENVIRONMENT = re.compile(r"os\.environ\s*\[|os\.environ\.(?:update|setdefault|pop)\(|os\.putenv\(|\buse_hub\(")


def registry_problems(case: Case) -> list[Problem]:
    """What tests/test_registry.py asserted of every case before `kb check` existed."""
    out: list[str] = []
    if not ID_PATTERN.match(case.id) or not SLUG_PATTERN.fullmatch(case.slug):
        out.append(f"id {case.id!r} or slug {case.slug!r} is not well formed")
    if case.folder_name != f"{case.id}-{case.slug}":
        out.append(f"the folder is {case.folder_name}, but id and slug make {case.id}-{case.slug}")
    present = [h for h in case.sections if h in REQUIRED_SECTIONS]
    if present != list(REQUIRED_SECTIONS):
        out.append("the prose sections are in the order " + ", ".join(f"## {h}" for h in present)
                   + "; expected " + ", ".join(f"## {h}" for h in REQUIRED_SECTIONS))
    for key, what in (("title", "title"), ("summary", "summary"), ("setting", "setting (where it was seen)")):
        if not str(case.meta.get(key) or "").strip():
            out.append(f"no {what}")
    if not case.sources:
        out.append("no [[sources]]")
    if not case.hardware:
        out.append("no hardware profile (hardware, or the reproductions')")
    for name in case.hardware:
        if name not in PROFILES:
            out.append(f"hardware {name!r} is no profile (kb/reproduce/profiles.py)")
    if not str(case.versions.get("observed") or "").strip():
        out.append("[versions] observed is empty (where and on which versions the failure was recorded)")
    if case.status != "unreproduced":
        if not case.reproductions:
            out.append(f"status {case.status!r} but no [[reproductions]] "
                       "(a case nobody could reproduce says status = \"unreproduced\")")
        if not case.signatures:
            out.append("no [[signatures]]: kb diagnose cannot recognise it")
    names = [r.name for r in case.reproductions]
    for name in sorted({n for n in names if names.count(n) > 1}):
        out.append(f"two reproductions are named {name!r}")
    for rep in case.reproductions:
        where = f"reproduction {rep.name!r}"
        try:
            if case.program_source(rep.failing) == case.program_source(rep.fixed):
                out.append(f"{where}: {rep.failing} and {rep.fixed} are the same program")
        except (OSError, UnicodeDecodeError) as exc:
            out.append(f"{where}: a program cannot be read ({exc})")
        for name in rep.hardware:
            if name not in PROFILES:
                out.append(f"{where}: hardware {name!r} is no profile (kb/reproduce/profiles.py)")
        if not rep.fresh_python:
            for program in (rep.failing, rep.fixed):
                try:
                    source = case.program_source(program)
                except (OSError, UnicodeDecodeError):
                    continue
                found = SETS_ENVIRONMENT.search(source)
                if found:
                    out.append(f"{where}: {program} sets the environment ({found.group(0)}...), which libraries read "
                               "at import: say fresh_python = true (the test suite then never forks it from a "
                               "preloaded Python)")
        expect = rep.failing_expect
        if not (expect.signature or expect.measures):
            out.append(f"{where}: failing_expect asserts nothing (a signature, or measures for a silent failure)")
        if expect.signature and not expect.raised_in:
            out.append(f"{where}: failing_expect names a signature but not where the library raises it (raised_in)")
    return [Problem(case.file, "registry", m) for m in out]


def placeholder_problems(folder: Path) -> list[Problem]:
    """``kb new``'s placeholders left in case.md or a program (any ``*.py`` of the folder); one problem a file.
    Works on a folder that did not load, too."""
    problems = []
    files = [folder / CASE_FILE] + sorted(p for p in folder.glob("*.py") if p.is_file())
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the loader reports case.md; the programs are read by the rules that need them
        hits: dict[str, list[int]] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            for m in PLACEHOLDER.finditer(line):
                hits.setdefault(m.group(0), [])
                if number not in hits[m.group(0)]:
                    hits[m.group(0)].append(number)
        if hits:
            found = "; ".join(f"{token!r} on line{'s' if len(lines) > 1 else ''} {_numbers(lines)}"
                              for token, lines in hits.items())
            problems.append(Problem(str(path), "placeholder",
                                    f"placeholder left from `kb new`: {found} (write the real text)"))
    return problems


def _numbers(lines: list[int], most: int = 8) -> str:
    shown = ", ".join(str(n) for n in lines[:most])
    return shown + (f" and {len(lines) - most} more" if len(lines) > most else "")


def run_problems(case: Case) -> list[Problem]:
    """Evidence files as the runner writes them, and a failing and a fixed run of every reproduction
    recorded on one of its hardware profiles."""
    problems = []
    folder = case.path / EVIDENCE_DIR
    recorded: set[tuple[str, str, str]] = set()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            problems.append(Problem(str(path), "runs", f"not a recorded run (JSON): {exc}"))
            continue
        if not isinstance(data, dict):
            problems.append(Problem(str(path), "runs", "not a recorded run: not a JSON object"))
            continue
        missing = [k for k in EVIDENCE_KEYS if k not in data]
        if missing:
            problems.append(Problem(str(path), "runs", f"lacks {', '.join(missing)} "
                                    "(evidence is written by kb reproduce --record, not by hand)"))
            continue
        if data["case"] != case.id:
            problems.append(Problem(str(path), "runs", f"records case {data['case']!r}, not {case.id}"))
        stem = evidence_stem(str(data["reproduction"]), str(data["program"]), str(data["profile"]))
        if path.stem != stem:
            problems.append(Problem(str(path), "runs", f"records the run {stem}, not {path.stem}"))
        if not (folder / str(data["log"])).is_file():
            problems.append(Problem(str(path), "runs", f"its log {data['log']} is not in {EVIDENCE_DIR}/"))
        recorded.add((str(data["reproduction"]), str(data["program"]), str(data["profile"])))
    for rep in case.reproductions:
        if any((rep.name, "failing", p) in recorded and (rep.name, "fixed", p) in recorded for p in rep.hardware):
            continue
        gaps = "; ".join(
            f"{p}: " + ", ".join(f"no {program} run" for program in ("failing", "fixed")
                                 if (rep.name, program, p) not in recorded)
            for p in rep.hardware
        )
        variant = "" if rep is case.reproductions[0] else f" --variant {rep.name}"
        problems.append(Problem(case.file, "runs",
                                f"reproduction {rep.name!r} has no failing and fixed run recorded on one profile "
                                f"({gaps}): kb reproduce {case.id}{variant} --record and "
                                f"kb reproduce {case.id}{variant} --fixed --record"))
    return problems


def snippet_problems(case: Case) -> list[Problem]:
    """The [fix] snippet tied to the fixed programs; every piece of fix code runs as pasted; the template prints
    no markup (kb/tidy/snippets.py, kb/tidy/templates.py)."""
    message = snippet_problem(case)
    out = [Problem(case.file, "snippet", message)] if message else []
    out += [Problem(case.file, "snippet", m) for m in fix_code_problems(case)]
    return out + [Problem(case.file, "template", m) for m in template_problems(case)]


def case_problems(case: Case) -> list[Problem]:
    from kb.tidy.ranges import range_problems

    return registry_problems(case) + run_problems(case) + range_problems(case) + snippet_problems(case)

