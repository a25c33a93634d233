"""Which library versions a reproduction is verified on, and which it needs.

Two different things, kept apart on purpose:

* the **verified range** of a reproduction is computed, never typed: the lowest and the highest
  version of each of its main libraries among the runs that passed, both programs. Those runs are
  the case's recorded evidence (``evidence/*.json``: a failing and a fixed run of one profile that
  both passed) and its matrix entries (``evidence/matrix.toml``, written by `kb verify`, status
  ``pass``);
* the **required range** is what a reproduction declares it needs (``requires_versions =
  { transformers = ">=5.23" }``): outside it the test suite, `kb reproduce` and `kb verify` skip the
  reproduction and say why, instead of failing. `kb check` holds it against the evidence (a run that
  passed outside the declared range contradicts it).

"Main libraries" are the fine-tuning stack (tables/libraries.toml, role ``stack``) that the
reproduction imports (``requires``) or constrains (``requires_versions``).
"""

from __future__ import annotations

import importlib.metadata
import platform
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kb.knowledge.evidence import matrix_runs, observed
from kb.knowledge.model import Case
from kb.knowledge.reproductions import Reproduction
from kb.knowledge.pins import canonical_name, parse_pins
from kb.knowledge.tables import libraries
from kb.knowledge.versions import InvalidSpecifier, InvalidVersion, contains, parse_version


@dataclass(frozen=True)
class Span:
    """The lowest and highest version of one library among the passing runs, and how many runs."""

    library: str
    low: str
    high: str
    runs: int

    def text(self) -> str:
        low, high = _public(self.low), _public(self.high)
        return f"{self.library} {low}" if low == high else f"{self.library} {low}–{high}"


def _public(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``: the range is about releases, not builds."""
    return version.split("+", 1)[0]


def _key(version: str) -> tuple[object, ...]:
    try:
        return parse_version(version).key()
    except InvalidVersion:
        return ((0,), (), (), ())


def main_libraries(rep: Reproduction) -> tuple[str, ...]:
    """The stack libraries ``rep`` imports or constrains, in tables/libraries.toml's order."""
    wanted = {canonical_name(n) for n in (*rep.requires, *rep.requires_versions)}
    return tuple(name for name in libraries("stack") if canonical_name(name) in wanted)


def passing_runs(case: Case, rep: Reproduction) -> list[dict[str, Any]]:
    """Every run of ``rep`` whose failing and fixed programs both passed, as ``{"source", "versions", "program"}``.

    ``source``: the evidence file (``evidence/default.failing.cpu.json``) or ``matrix.toml [stack]``.
    A recorded pair contributes the versions of each of its two runs (``program`` says which; a matrix
    entry ran both programs on its stack: ``program`` None, unless the entry recorded each program's own
    versions, as `kb verify` does for a pinned reproduction: then one run per program).
    """
    out: list[dict[str, Any]] = []
    pairs: dict[str, dict[str, dict[str, Any]]] = {}
    for run in observed(case):  # newest first: the newest run of each program and profile decides
        if run.get("reproduction") != rep.name:
            continue
        pairs.setdefault(str(run.get("profile")), {}).setdefault(str(run.get("program")), run)
    for profile, programs in sorted(pairs.items()):
        failing, fixed = programs.get("failing"), programs.get("fixed")
        if failing and fixed and failing.get("passed") and fixed.get("passed"):
            for run in (failing, fixed):
                out.append({"source": f"evidence/{run.get('file', '').split('/')[-1]}", "versions": run.get("versions") or {},
                            "program": run.get("program")})
    for entry in matrix_runs(case):
        if entry.get("reproduction") == rep.name and entry.get("status") == "pass":
            source = f"evidence/matrix.toml [{entry.get('stack')}]"
            own = {p: (entry.get(p) or {}).get("versions") for p in ("failing", "fixed")}
            if all(own.values()):
                out += [{"source": source, "versions": versions, "program": p} for p, versions in own.items()]
            else:
                out.append({"source": source, "versions": entry.get("versions") or {}, "program": None})
    return out


def verified_range(case: Case, rep: Reproduction, program: str | None = None) -> tuple[Span, ...]:
    """The verified range of each main library of ``rep`` (a library no passing run recorded is left out);
    ``program``: only that program's runs (a reproduction whose fixed program has its own ``fixed_pins``
    runs its two programs on different versions, so each has a range of its own)."""
    runs = [r for r in passing_runs(case, rep) if program is None or r["program"] in (None, program)]
    spans = []
    for name in main_libraries(rep):
        seen = [str(r["versions"][name]) for r in runs if r["versions"].get(name)]
        if seen:
            ordered = sorted(seen, key=_key)
            spans.append(Span(name, ordered[0], ordered[-1], len(seen)))
    return tuple(spans)


def range_text(spans: tuple[Span, ...]) -> str:
    """``torch 2.4.1–2.15.0, transformers 4.51.3–5.24.0``, or "" when nothing passed."""
    return ", ".join(span.text() for span in spans)


@lru_cache(maxsize=1)
def installed_versions() -> dict[str, str]:
    """The installed distributions' versions, by canonical name, and ``python`` (this Python; read once)."""
    out: dict[str, str] = {"python": platform.python_version()}
    for dist in importlib.metadata.distributions():
        try:
            name = dist.metadata["Name"] if dist.metadata else None
            if name:
                out.setdefault(canonical_name(name), dist.version)
        except (OSError, ValueError):  # a METADATA file unreadable or not UTF-8: that package's version is unknown
            continue
    return out


def version_problem(rep: Reproduction, versions: dict[str, str], pins: tuple[str, ...] | None = None) -> str | None:
    """Why ``versions`` (distribution -> version) lie outside ``rep``'s ``requires_versions``, or None.

    A pinned reproduction runs its pins, not what is installed: a pin stands in for the installed version.
    ``pins``: those of the program in question (``rep.pins_for(program)``); default ``rep.pins``.
    """
    if not rep.requires_versions:
        return None
    have = {canonical_name(k): v for k, v in versions.items()}
    have.update({pin.name: pin.version for pin in parse_pins(rep.pins if pins is None else pins)})
    problems = []
    for name, spec in rep.requires_versions.items():
        installed = have.get(canonical_name(name))
        if installed is None:
            problems.append(f"needs {name}{spec}, which is not installed")
            continue
        try:
            inside = contains(spec, installed)
        except (InvalidSpecifier, InvalidVersion) as exc:
            problems.append(f"cannot compare {name} {installed} with {spec!r}: {exc}")
            continue
        if not inside:
            problems.append(f"needs {name}{spec}, found {name} {installed}")
    return "; ".join(problems) or None


def spec_problems(rep: Reproduction) -> list[str]:
    """``requires_versions`` entries that do not parse or name no library kb knows."""
    known = {canonical_name(n) for n in libraries("recorded")} | {"python"}  # what a run records (kb/reproduce/harness.py)
    out = []
    for name, spec in rep.requires_versions.items():
        if canonical_name(name) not in known:
            out.append(f"requires_versions names {name!r}, which no run records (known: {', '.join(sorted(known))})")
        try:
            contains(spec, "0")
        except InvalidSpecifier as exc:
            out.append(f"requires_versions {name} = {spec!r} is not a range kb reads: {exc}")
        except InvalidVersion:
            pass
    return out


def fixed_since(case: Case, rep: Reproduction) -> str:
    """``transformers 5.25.0``: since which release ``rep`` no longer fails, one entry per library whose version
    moved; "" when the evidence does not say.

    A reproduction whose fixed program has ``fixed_pins`` (the fix is an upgrade): the lowest release its fixed
    program worked on above the highest its failing program failed on, among the passing runs, for each library
    the two pin lists set apart. Otherwise: where the matrix saw the failing program stop failing (status
    ``does-not-fail``) above every version it still failed on (the matrix cannot tell which library fixed it)."""
    if rep.fixed_pins is not None:
        runs = passing_runs(case, rep)
        failing = [r["versions"] for r in runs if r["program"] in (None, "failing")]
        fixed = [r["versions"] for r in runs if r["program"] in (None, "fixed")]
        pinned = (dict((p.name, p.version) for p in parse_pins(rep.pins)),
                  dict((p.name, p.version) for p in parse_pins(rep.fixed_pins)))
        # only a library the fixed program pins: an unpinned one ran at whatever the stack held, which dates nothing
        names = [n for n in main_libraries(rep) if canonical_name(n) in pinned[1]
                 and pinned[0].get(canonical_name(n)) != pinned[1].get(canonical_name(n))]
    else:
        entries = [e for e in matrix_runs(case) if e.get("reproduction") == rep.name]
        fixed = [_failing_versions(e) for e in entries if e.get("status") == "does-not-fail"]
        failing = [_failing_versions(e) for e in entries if e.get("status") == "pass"]
        names = list(main_libraries(rep))
    if not fixed or not failing:  # it must have failed somewhere first: a release before the bug fixed nothing
        return ""
    out = []
    for name in names:
        highest_failing = max((v[name] for v in failing if v.get(name)), key=_key, default=None)
        candidates = [v[name] for v in fixed if v.get(name)
                      and (highest_failing is None or _key(v[name]) > _key(highest_failing))]
        if candidates:
            out.append(f"{name} {_public(min(candidates, key=_key))}")
    return ", ".join(out)


def _failing_versions(entry: dict[str, Any]) -> dict[str, Any]:
    """The versions a matrix entry's failing program ran: its own where recorded (a pinned reproduction), else the stack's."""
    return (entry.get("failing") or {}).get("versions") or entry.get("versions") or {}


NOTHING_PASSED = "no run of both programs passed yet"


def verified_text(case: Case, rep: Reproduction, quote: str = "", strong: str = "") -> str:
    """``rep``'s verified range, what it needs and since which release it no longer fails, in words: the one
    sentence the case page and `kb show` print. ``quote`` wraps a requirement (a backtick for Markdown),
    ``strong`` the "fixed since" (``**``)."""
    if rep.fixed_pins is None:
        text = range_text(verified_range(case, rep)) or NOTHING_PASSED
    else:  # the programs run on different versions: a range each
        failing, fixed = (range_text(verified_range(case, rep, p)) for p in ("failing", "fixed"))
        text = (f"the failing program fails on {failing}; the fixed program works on {fixed}" if failing and fixed
                else NOTHING_PASSED)
    if rep.requires_versions:
        text += "; needs " + ", ".join(f"{quote}{k}{v}{quote}" for k, v in rep.requires_versions.items()) + " (skips elsewhere)"
    since = fixed_since(case, rep)
    if since and rep.fixed_pins is not None:
        text += (f"; {strong}fixed since {since}{strong} (the lowest release the fixed program worked on, above the "
                 "highest the failing program failed on; releases between them were not run)")
    elif since:
        text += f"; {strong}fixed since {since}{strong} (the failing program completes there; the pinned reproduction keeps it)"
    return text
