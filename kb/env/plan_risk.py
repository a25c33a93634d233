"""`kb env --config`'s memory pre-flight: `kb plan` on the config's run and this machine's first visible GPU.

The config file must name the model (``model_name_or_path``, ``base_model`` or ``model``: a model id kb ships
or a local folder/config.json); batch, accumulation, sequence length, optimizer, checkpointing, LoRA and
4-bit settings are read from it as `kb plan --from` reads them. One GPU per process is assumed (plain
python or torchrun/DDP): the plan is for one GPU of the size NVML reports.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

MIB = 1024**2
CHECK = "memory-plan"
MODEL_KEYS = ("model_name_or_path", "base_model", "model", "model_id")


def check_plan(report: dict[str, Any], make_check: Callable[[str, str | None, str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """One check (``risk``, ``ok`` or ``skipped``) when a --config was given, else none.

    ``make_check(name, slug, status, message)`` builds the check dict as kb/env/risks.py does.
    """
    config = report.get("config")
    if not config:
        return []
    path = config.get("path") or config.get("file")
    from kb.plan.settings_file import read_settings
    from kb.plan.estimate import GIB
    from kb.plan.report import plan_document
    from kb.plan.shapes import ShapeError, load_shape
    from kb.plan.spec import SpecError, spec_from_settings

    try:
        data = config.get("data")  # what kb env read once (review50b: a pipe read again is empty: "names no model")
        if not isinstance(data, dict):
            data = read_settings(str(path)) if path and Path(path).is_file() else {}
    except SpecError as exc:
        return [make_check(CHECK, None, "skipped", f"kb plan could not read the config: {exc}")]
    flat = {**{k: v for d in data.values() if isinstance(d, dict) for k, v in d.items()}, **data}
    model = next((flat[k] for k in MODEL_KEYS if isinstance(flat.get(k), str)), None)
    if not model:
        return [make_check(CHECK, None, "skipped", "the config names no model (model_name_or_path): "
                           "no memory plan; run kb plan --model ... --from CONFIG")]
    label = Path(model).name or model  # a local path may name the user: only its last part is echoed
    gpus = [g for g in (report.get("gpus") or []) if g.get("visible", True) and g.get("memory_total_mib")]
    if not gpus:
        return [make_check(CHECK, None, "skipped", f"no GPU size readable here (NVML): kb plan --from CONFIG --model {label} --gpu-gib X")]
    gib = round(gpus[0]["memory_total_mib"] * MIB / GIB, 2)
    try:
        spec = spec_from_settings(data).with_(gpu_gib=(gib,))
        doc = plan_document(load_shape(model), spec)
    except (ShapeError, SpecError) as exc:
        return [make_check(CHECK, None, "skipped", f"kb plan: {str(exc).replace(model, label)}")]
    g = doc["gpus"][0]
    figures = (f"kb plan predicts {g['needs_gib']:.2f} GiB on a {gib} GiB GPU for {label} "
               f"(peak {g['peak_allocated_gib']:.2f} allocated, {g['peak_reserved_gib']:.2f} reserved, at {g['peak_phase']})")
    if doc["fits"]:
        return [make_check(CHECK, None, "ok", figures)]
    case = doc["case"] or {}
    fix = doc["to_fit"][0]["change"] if doc["to_fit"] else "a smaller batch or sequence, checkpointing, 4-bit"
    return [make_check(CHECK, case.get("slug"), "risk", f"{figures}: out of memory predicted; e.g. {fix}")]
