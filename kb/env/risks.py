"""Pre-flight risks: facts from `kb env`'s report that predict a known case.

Each check is a rule in a case's ``[[risks]]`` (evaluated by kb/knowledge/rules.py on the facts of
kb/env/facts.py) or a ``[versions] affected`` range, and names the case slug it predicts. A slug whose case folder does not
exist (yet) still works: the check says "case not yet in this knowledge base".
A check's ``status`` is ``risk`` (the case's conditions are present), ``ok``
(checked, and they are not) or ``skipped`` (a fact it needs could not be read,
e.g. no GPU count without NVML); ``message`` says which facts decided it.

``kb diagnose --env`` reuses the checks as evidence (see :func:`machine_evidence`):
a ``risk`` on a matched case's slug supports the match, an ``ok`` speaks against it.
"""

from __future__ import annotations

from typing import Any, Iterable

from kb.diagnose.machine import MACHINE_WEIGHT, MachineEvidence
from kb.knowledge.model import Case
from kb.knowledge.registry import load_cases_leniently
from kb.env.facts import compute_facts, installed_version
from kb.knowledge.rules import evaluate


ENV_WEIGHT = MACHINE_WEIGHT  # what a machine that fits a diagnosis adds to its score (kb/diagnose/machine.py)


def _check(name: str, slug: str | None, status: str, message: str, cases: dict[str, Case]) -> dict[str, Any]:
    case = cases.get(slug) if slug else None
    return {
        "check": name,
        "slug": slug,
        "status": status,
        "severity": "warning" if status == "risk" else None,
        "message": message,
        "case": case.id if case else None,
        "case_title": case.title if case else None,
        "in_kb": case is not None,
        "more": f"kb show {case.id}" if case else ("case not yet in this knowledge base" if slug else None),
    }


def check_rules(report: dict[str, Any], case_list: Iterable[Case], cases: dict[str, Case],
                assume_bf16: str | None = None) -> list[dict[str, Any]]:
    """Every case's ``[[risks]]`` rules, evaluated on the report's facts (kb/knowledge/rules.py)."""
    facts = compute_facts(report, assume_bf16)
    found = []
    for case in case_list:
        for rule in case.risks:
            outcome = evaluate(rule, facts)
            if outcome is not None:
                found.append(_check(rule["check"], case.slug, outcome[0], outcome[1], cases))
    return found


def check_versions(report: dict[str, Any], case_list: Iterable[Case], cases: dict[str, Case]) -> list[dict[str, Any]]:
    found = []
    for case in case_list:
        for rng in case.affected:
            installed = installed_version(rng.package, report["versions"])
            name = f"version-range:{case.id}:{rng.package}"
            if installed is None:
                found.append(_check(name, case.slug, "skipped", f"{rng.package} is not installed", cases))
                continue
            from kb.knowledge.versions import InvalidVersion, contains

            try:
                inside = contains(rng.spec, installed)
            except InvalidVersion:
                found.append(_check(name, case.slug, "skipped", f"cannot compare {rng.package} {installed} with {rng.spec}", cases))
                continue
            if inside:
                note = f" ({rng.note})" if rng.note else ""
                message = f"your {rng.package} {installed} is affected by {case.id} {case.slug} ({rng.package}{rng.spec}): {case.title}{note}"
                found.append(_check(name, case.slug, "risk", message, cases))
            else:
                found.append(_check(name, case.slug, "ok", f"{rng.package} {installed} is outside {rng.spec}", cases))
    if not found:
        found.append(
            _check("version-range", None, "skipped", "no case in this knowledge base declares [versions] affected ranges yet", {})
        )
    return found


def run_checks(report: dict[str, Any], cases: Iterable[Case] | None = None, assume_bf16: str | None = None) -> list[dict[str, Any]]:
    """All checks on a report from :func:`kb.env.report.collect`."""
    if cases is None:
        problems: list[str] = []
        case_list = load_cases_leniently(problems)
        report["unreadable"].extend(problems)
    else:
        case_list = list(cases)
    by_slug = {c.slug: c for c in case_list}
    from kb.env.plan_risk import check_plan

    plan = check_plan(report, lambda name, slug, status, message: _check(name, slug, status, message, by_slug))
    return [*check_rules(report, case_list, by_slug, assume_bf16), *check_versions(report, case_list, by_slug), *plan]


def machine_evidence(report: dict[str, Any], cases: Iterable[Case] | None = None) -> MachineEvidence:
    """`kb diagnose --env`: the report's checks as evidence for diagnose, given to it before ranking.

    For each case the checks on its slug are run with bf16 assumed requested (the error being
    diagnosed is the request): a ``risk`` supports a match of that case, an ``ok`` speaks against it
    (kb/diagnose/machine.py weighs them). Installed versions feed the API-drift stage.
    """
    case_list = list(cases) if cases is not None else load_cases_leniently([])
    evidence_checks = run_checks(report, cases=case_list, assume_bf16="bf16 is in use (the error being diagnosed)")
    checks: dict[str, tuple[list[str], list[str]]] = {}
    for c in evidence_checks:
        if c["slug"] and c["status"] in ("risk", "ok"):
            supports, against = checks.setdefault(c["slug"], ([], []))
            (supports if c["status"] == "risk" else against).append(c["message"])
    versions = {k: v for k, v in (report.get("versions") or {}).items() if isinstance(v, str)}
    risks = [(r["slug"], r["message"], r["more"]) for r in report.get("risks", [])]
    return MachineEvidence(report, versions, checks, risks)
