"""The text rendering of `kb env`'s report (the JSON form is the report itself)."""

from __future__ import annotations

from typing import Any

from kb.env.report import PACKAGES


def _gib(mib: int | None) -> str:
    return "?" if mib is None else f"{mib / 1024:.1f} GiB"


def render_text(report: dict[str, Any]) -> str:
    v = report["versions"]
    src = report["version_sources"]
    lines = ["kb env: environment report (safe to share: no tokens, no home paths)", ""]
    p = report["platform"]
    lines.append(f"  {'python':<13} {v['python']} ({p['implementation']}, {p['system']} {p['machine']})")
    for name in PACKAGES:
        shown = v[name] or ("not installed" if src.get(name) == "package metadata" else src.get(name, "not installed"))
        if name == "torch" and v[name]:
            cuda = v["torch_cuda"]
            shown += f" (built with CUDA {cuda}, from {src['torch_cuda']})" if cuda else f" (no CUDA; {src['torch_cuda']})"
        lines.append(f"  {name:<13} {shown}")
    lines.append(f"  {'nccl':<13} {v['nccl'] or 'not installed'} ({src['nccl']})")
    lines.append("")
    nvml = report["nvml"]
    if not nvml["available"]:
        lines.append(f"GPUs: unknown ({nvml['error']})")
    else:
        lines.append(f"GPUs (NVML; driver {nvml['driver_version'] or '?'}, supports CUDA up to "
                     f"{nvml['cuda_driver_version'] or '?'}):")
        if not report["gpus"]:
            lines.append("  none")
        for g in report["gpus"]:
            seen = f"visible as cuda:{g['cuda_index']}" if g["visible"] else "hidden by CUDA_VISIBLE_DEVICES"
            procs = g["processes"]
            nprocs = "processes unknown" if procs is None else f"{len(procs)} process(es)"
            bf16 = {True: "bf16 yes", False: "bf16 NO", None: "bf16 ?"}[g["bf16"]]
            lines.append(
                f"  [{g['index']}] {g['name'] or '?'}  cc {g['compute_capability'] or '?'} ({bf16})  "
                f"{_gib(g['memory_total_mib'])} total, {_gib(g['memory_free_mib'])} free  {nprocs}  {seen}"
            )
            for pr in procs or []:
                used = pr["used_memory_mib"]
                lines.append(f"        pid {pr['pid'] if pr['pid'] is not None else '?'} {pr['name'] or '?'}: "
                             f"{used if used is not None else '?'} MiB")
            for m in g["mig_devices"]:
                lines.append(f"        MIG {m['uuid']}: {_gib(m['memory_total_mib'])}")
    cvd = report["cuda_visible_devices"]
    count = "unknown number of" if cvd["visible_count"] is None else str(cvd["visible_count"])
    if cvd["set"]:
        lines.append(f"CUDA_VISIBLE_DEVICES={cvd['value']!r}: {count} GPU(s) visible")
    else:
        lines.append(f"CUDA_VISIBLE_DEVICES unset: {count} GPU(s) visible (all)")
    for note in cvd["notes"]:
        lines.append(f"  note: {note}")
    d = report["distributed"]
    if d["launched"]:
        lines.append(f"Launch: distributed ({d['launcher']}), rank {d['rank']}, world size {d['world_size']}, local world size {d['local_world_size']}")
    else:
        lines.append("Launch: not distributed (no RANK / WORLD_SIZE / LOCAL_RANK set)")
    for name, value in d["variables"].items():
        lines.append(f"  {name}={value}")
    if report["intended_processes"]:
        lines.append(f"Intended processes per node (--nproc): {report['intended_processes']}")
    cfg = report["config"]
    if cfg:
        shown = ", ".join(f"{k}={val}" for k, val in cfg["settings"].items()) or "none of the batch/precision keys"
        lines.append(f"Config {cfg['file']} ({cfg['format']}): {shown}")
    lines.append("")
    risks = report["risks"]
    lines.append(f"Risks: {len(risks)}" if risks else "Risks: none found")
    for r in risks:
        lines.append(f"  ! [{r['slug']}] {r['message']}")
        lines.append(f"    {r['more']}")
    skipped = [c for c in report["checks"] if c["status"] == "skipped"]
    ok = [c for c in report["checks"] if c["status"] == "ok"]
    lines.append(f"Checks passed: {len(ok)}; not run: {len(skipped)}")
    for c in skipped:
        lines.append(f"  - {c['check']}: {c['message']}")
    if report["unreadable"]:
        lines.append("")
        lines.append("Could not read:")
        lines.extend(f"  - {u}" for u in report["unreadable"])
    return "\n".join(lines) + "\n"
