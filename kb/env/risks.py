"""Pre-flight risks: facts from `kb env`'s report that predict a known case.

Each check names the case slug it predicts. A slug whose case folder does not
exist (yet) still works: the check says "case not yet in this knowledge base".
A check's ``status`` is ``risk`` (the case's conditions are present), ``ok``
(checked, and they are not) or ``skipped`` (a fact it needs could not be read,
e.g. no GPU count without NVML); ``message`` says which facts decided it.

``kb diagnose --env`` reuses the checks as evidence (see :func:`attach_to_diagnosis`):
a ``risk`` on a matched case's slug supports the match, an ``ok`` speaks against it.
"""

from __future__ import annotations

from typing import Any, Iterable

from kb.knowledge.model import Case
from kb.knowledge.load import KnowledgeError, load_case
from kb.env.report import installed_version
from kb.env.config import truthy

SLUG_BATCH = "batch-size-times-gpu-count"
SLUG_BF16 = "bf16-unsupported-gpu"
SLUG_NCCL_DUP = "nccl-duplicate-gpu"

# What a machine that fits a diagnosis adds to its score (kept <= 1.0): the same as
# kb.diagnose.match's WEIGHT_ENVIRONMENT for a matching fact read from the log.
ENV_WEIGHT = 0.05
_BF16_DTYPES = ("bfloat16", "torch.bfloat16", "bf16")


def load_cases_leniently(problems: list[str]) -> list[Case]:
    """Every loadable case; a broken case.md is reported, not fatal (cases are edited live)."""
    from kb.knowledge.registry import case_folders

    cases = []
    for folder in case_folders():
        try:
            cases.append(load_case(folder))
        except KnowledgeError as exc:
            problems.append(f"case {folder.name}: {exc}")
    return cases


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


def _visible_gpus(report: dict[str, Any]) -> list[dict[str, Any]] | None:
    if report["gpus"] is None:
        return None
    return [g for g in report["gpus"] if g.get("visible")]


def _processes_per_node(report: dict[str, Any]) -> tuple[int | None, str]:
    """How many processes will share this node's GPUs, and where that number comes from."""
    if report.get("intended_processes"):
        return int(report["intended_processes"]), "--nproc"
    dist = report["distributed"]
    if dist["local_world_size"]:
        return int(dist["local_world_size"]), "LOCAL_WORLD_SIZE"
    cfg = (report.get("config") or {}).get("settings", {})
    if isinstance(cfg.get("num_processes"), int) and cfg["num_processes"] > 0:
        machines = cfg.get("num_machines") if isinstance(cfg.get("num_machines"), int) and cfg["num_machines"] > 0 else 1
        return max(1, cfg["num_processes"] // machines), "the config's num_processes"
    return None, ""


def check_batch_times_gpus(report: dict[str, Any], cases: dict[str, Case]) -> dict[str, Any]:
    name = "multi-gpu-not-distributed"
    count = report["cuda_visible_devices"]["visible_count"]
    if count is None:
        return _check(name, SLUG_BATCH, "skipped", "cannot count the visible GPUs (NVML not readable)", cases)
    if report["distributed"]["launched"]:
        return _check(name, SLUG_BATCH, "ok", "launched distributed: each process drives one GPU", cases)
    procs, source = _processes_per_node(report)
    if procs and procs > 1:
        return _check(name, SLUG_BATCH, "ok", f"{procs} processes intended ({source}): each drives one GPU", cases)
    if count <= 1:
        return _check(name, SLUG_BATCH, "ok", f"{count} GPU visible to a single process", cases)
    settings = (report.get("config") or {}).get("settings", {})
    per_device = settings.get("per_device_train_batch_size", settings.get("per_gpu_train_batch_size"))
    batch = (
        f" (your per_device_train_batch_size={per_device} becomes {per_device} x {count} = {per_device * count} per step)"
        if isinstance(per_device, int) and not isinstance(per_device, bool)
        else ""
    )
    message = (
        f"{count} GPUs are visible and the run is not launched distributed: transformers' Trainer then uses the "
        f"{count} GPUs through DataParallel and multiplies the per-device batch size by {count}{batch}. "
        f"Set CUDA_VISIBLE_DEVICES=0 before Python starts, or launch with torchrun/accelerate."
    )
    return _check(name, SLUG_BATCH, "risk", message, cases)


def bf16_request(report: dict[str, Any], environ_mp: str | None) -> str | None:
    """Why bf16 is requested (the config or ACCELERATE_MIXED_PRECISION), or None."""
    settings = (report.get("config") or {}).get("settings", {})
    if truthy(settings.get("bf16")):
        return "bf16=true in the config"
    if str(settings.get("mixed_precision", "")).lower() == "bf16":
        return "mixed_precision=bf16 in the config"
    for key in ("torch_dtype", "dtype"):
        if str(settings.get(key, "")).lower() in _BF16_DTYPES:
            return f"{key}={settings[key]} in the config"
    if (environ_mp or "").lower() == "bf16":
        return "ACCELERATE_MIXED_PRECISION=bf16"
    return None


def check_bf16(report: dict[str, Any], cases: dict[str, Case], assume_requested: str | None = None) -> dict[str, Any]:
    name = "bf16-on-gpu-without-bf16"
    variables = report["distributed"]["variables"]
    reason = assume_requested or bf16_request(report, variables.get("ACCELERATE_MIXED_PRECISION"))
    if reason is None:
        if report.get("config") is None:
            return _check(name, SLUG_BF16, "skipped", "no --config given: nothing says bf16 is requested", cases)
        return _check(name, SLUG_BF16, "ok", "bf16 is not requested", cases)
    visible = _visible_gpus(report)
    if visible is None:
        return _check(name, SLUG_BF16, "skipped", f"{reason}, but the GPUs' compute capability is unknown (NVML not readable)", cases)
    if not visible:
        return _check(name, SLUG_BF16, "skipped", f"{reason}, but no GPU is visible", cases)
    lacking = [g for g in visible if g.get("bf16") is False]
    if lacking:
        named = ", ".join(f"GPU {g['index']} {g['name']} (compute capability {g['compute_capability']})" for g in lacking)
        message = (
            f"{reason}, but {named} {'has' if len(lacking) == 1 else 'have'} no native bf16 (that needs compute "
            f"capability 8.0, Ampere, or newer): depending on the torch/transformers versions bf16 is refused or "
            f"emulated slowly, and some kernels reject it; use fp16 on {'this GPU' if len(lacking) == 1 else 'these GPUs'}"
        )
        return _check(name, SLUG_BF16, "risk", message, cases)
    if any(g.get("bf16") is None for g in visible):
        return _check(name, SLUG_BF16, "skipped", f"{reason}; a visible GPU's compute capability could not be read", cases)
    return _check(name, SLUG_BF16, "ok", f"{reason}, and every visible GPU has compute capability >= 8.0", cases)


def check_processes_vs_gpus(report: dict[str, Any], cases: dict[str, Case]) -> dict[str, Any]:
    name = "processes-exceed-gpus"
    procs, source = _processes_per_node(report)
    if procs is None:
        return _check(name, SLUG_NCCL_DUP, "skipped", "number of processes per node unknown (pass --nproc N)", cases)
    count = report["cuda_visible_devices"]["visible_count"]
    if count is None:
        return _check(name, SLUG_NCCL_DUP, "skipped", f"{procs} processes ({source}), but the visible GPU count is unknown", cases)
    if count == 0:
        return _check(name, SLUG_NCCL_DUP, "skipped", f"{procs} processes ({source}), but no GPU is visible", cases)
    if procs > count:
        message = (
            f"{procs} processes per node ({source}) but only {count} GPU(s) visible: two ranks land on one GPU and "
            f"NCCL fails with 'Duplicate GPU detected'. Launch at most {count} processes per node."
        )
        return _check(name, SLUG_NCCL_DUP, "risk", message, cases)
    return _check(name, SLUG_NCCL_DUP, "ok", f"{procs} processes ({source}) for {count} visible GPU(s)", cases)


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
    return [
        check_batch_times_gpus(report, by_slug),
        check_bf16(report, by_slug, assume_requested=assume_bf16),
        check_processes_vs_gpus(report, by_slug),
        *check_versions(report, case_list, by_slug),
    ]


def attach_to_diagnosis(doc: dict[str, Any], report: dict[str, Any], cases: Iterable[Case] | None = None) -> None:
    """Add the report to a `kb diagnose` document (key ``env``) and use it as evidence.

    ``doc["environment"]`` belongs to kb diagnose (facts read from the log); the
    machine's report goes beside it under ``env``. For each matched case, the
    checks on its slug are re-run with bf16 assumed requested (the error being
    diagnosed is the request). A ``risk`` adds an evidence line and ``ENV_WEIGHT``
    to the score (capped at 1.0; ties go to the supported case); an ``ok`` adds a
    line against it. Each match gets ``env: {supports, against}``.
    """
    from kb.diagnose import match as matcher

    doc["env"] = report
    case_list = list(cases) if cases is not None else load_cases_leniently([])
    evidence_checks = run_checks(report, cases=case_list, assume_bf16="bf16 is in use (the error being diagnosed)")
    high, medium = getattr(matcher, "HIGH", None), getattr(matcher, "MEDIUM", None)
    for m in doc["matches"]:
        mine = [c for c in evidence_checks if c["slug"] == m["slug"]]
        supports = [c["message"] for c in mine if c["status"] == "risk"]
        against = [c["message"] for c in mine if c["status"] == "ok"]
        m["evidence"].extend(f"this machine (kb env) fits: {s}" for s in supports)
        m["evidence"].extend(f"this machine (kb env) does not fit: {a}" for a in against)
        if supports:
            m["score"] = round(min(1.0, m["score"] + ENV_WEIGHT), 3)
            if "confidence" in m and high is not None and medium is not None:
                m["confidence"] = "high" if m["score"] >= high else "medium" if m["score"] >= medium else "low"
        m["env"] = {"supports": supports, "against": against}
    doc["matches"].sort(key=lambda m: (-m["score"], -len(m["env"]["supports"]), m["id"]))
    matched = {m["slug"] for m in doc["matches"]}
    for r in report["risks"]:
        if r["slug"] not in matched:
            doc["notes"].append(f"this machine (kb env) has a risk [{r['slug']}]: {r['message']} ({r['more']})")
    doc["notes"].append("kb env facts were read on the machine running kb diagnose: run it where the training ran")
