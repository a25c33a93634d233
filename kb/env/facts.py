"""Facts for the pre-flight rules (kb/knowledge/rules.py), computed from `kb env`'s report.

What must compute lives here (counting processes, reading a config, naming GPUs); what the facts
mean for a case lives in that case's ``[[risks]]``. A fact is None when the report cannot tell it;
``facts_unknown`` says why, for the rule's ``skipped`` messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import Any

from kb.env.config import truthy

_BF16_DTYPES = ("bfloat16", "torch.bfloat16", "bf16")


def dist_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def installed_version(package: str, versions: Mapping[str, str | None]) -> str | None:
    """Version of a package named in a case's ``[versions] affected`` (``python``, ``nccl`` too)."""
    key = package.lower().replace("_", "-")
    if key in versions:
        return versions[key]
    return dist_version(package)


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


def compute_facts(report: dict[str, Any], assume_bf16: str | None = None) -> dict[str, Any]:
    """Every fact a rule may name. (Booleans are True/False; counts are ints; None is unknown.)"""
    count = report["cuda_visible_devices"]["visible_count"]
    procs, source = _processes_per_node(report)
    settings = (report.get("config") or {}).get("settings", {})
    per_device = settings.get("per_device_train_batch_size", settings.get("per_gpu_train_batch_size"))
    per_device = per_device if isinstance(per_device, int) and not isinstance(per_device, bool) else None
    reason = assume_bf16 or bf16_request(report, report["distributed"]["variables"].get("ACCELERATE_MIXED_PRECISION"))
    visible = _visible_gpus(report)
    lacking = [g for g in visible if g.get("bf16") is False] if visible else []
    return {
        "visible_gpus": count,
        "launched_distributed": bool(report["distributed"]["launched"]),
        "processes_per_node": procs,
        "processes_source": source,
        "per_device_batch": per_device,
        "batch_note": (f" (your per_device_train_batch_size={per_device} becomes {per_device} x {count} = "
                       f"{per_device * count} per step)") if per_device is not None and count else "",
        "config_given": report.get("config") is not None,
        "bf16_requested": reason,
        "gpu_capability_known": visible is not None,
        "visible_gpu_list": len(visible) if visible is not None else None,
        "gpus_without_bf16": len(lacking),
        "gpus_without_bf16_named": ", ".join(
            f"GPU {g['index']} {g['name']} (compute capability {g['compute_capability']})" for g in lacking),
        "gpus_without_bf16_verb": "has" if len(lacking) == 1 else "have",
        "gpus_without_bf16_them": "this GPU" if len(lacking) == 1 else "these GPUs",
        "gpu_bf16_unknown": bool(visible) and any(g.get("bf16") is None for g in visible),
    }
