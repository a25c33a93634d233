"""`kb plan` for another engine: the plan of an out-of-memory run from the few settings a log shows.

kb diagnose reads a model name, a batch size, a sequence length, a quantization and the GPU's size from an
error's text; :func:`plan_for_oom` turns them into the planner's estimate, with every setting not given left
to the libraries' defaults (kb/plan/spec.py: RunSpec and RunSpec.resolved). Pure: no torch, no I/O beyond
kb's own tables. Importing this module costs nothing on kb diagnose's start-up: the planner is imported
when :func:`plan_for_oom` is called.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: kb diagnose imports this module
if TYPE_CHECKING:
    from typing import Any


# How logs and configs name a quantization -> kb plan's --quant
QUANT_NAMES = {
    "none": "none", "": "none", "bf16": "none", "fp16": "none", "16bit": "none",
    "nf4": "nf4", "4bit": "nf4", "4-bit": "nf4", "load_in_4bit": "nf4", "bnb-4bit": "nf4", "qlora": "nf4",
    "fp4": "fp4",
    "int8": "int8", "8bit": "int8", "8-bit": "int8", "load_in_8bit": "int8", "llm.int8": "int8",
}


def plan_for_oom(model: str, *, batch: int | None, seq: int | None, quant: str | None, gpu_gib: float | None,
                 lora_r: int | None, world_size: int | None = None) -> dict[str, Any] | None:
    """The planner's estimate for ``model`` run with these settings, as a JSON-able dict, or None.

    ``model`` is resolved leniently, as ``kb plan --model`` does (``Qwen/Qwen2.5-14B-Instruct``,
    ``Qwen2.5-14B-Instruct``, ``qwen2.5-14b``: kb/plan/names.py); a path is not read. Each setting left None
    takes kb plan's default: batch 1, seq 1024, no quantization, LoRA r=16 (0 = full fine-tuning), one GPU of
    unknown size; with 4-bit or 8-bit loading, prepare_model_for_kbit_training and the gradient checkpointing
    it turns on; fp16 compute on a card without bf16 (a T4), else bf16. ``quant`` may be spelled as logs
    spell it (``4bit``, ``load_in_4bit``, ``nf4``, ``8bit``, ``int8``...).

    Returns None when the model is not one kb knows, or when kb plan refuses the settings (a batch of 0, a
    quantization it does not know, full fine-tuning of a quantized model...). Otherwise::

        {"model": "qwen2.5-14b",                      # kb's id of the shapes used
         "settings": {"batch", "seq", "quant", "lora_r", "grad_ckpt", "kbit_prep", "compute_dtype"},
         "peak_gib": 17.37,                           # peak allocated on the fullest GPU
         "needs_gib": 17.87,                          # + CUDA context and paged optimizer states
         "gpu_gib": 14.74 | None,                     # the GPU size given
         "fits": True | False | None,                 # None when gpu_gib is None
         "summary": "one line a person reads",
         "advice": ["short change: predicted peak", ...],   # empty unless it does not fit
         "case": "kb0005 slug" | None,                # the case a run that does not fit would hit
         "notes": [...],                              # the defaults applied, as kb plan says them
         "breakdown": {"weights": 9.25, ...},         # GiB of each part at the peak (fullest GPU), zeros left out
         "peak_phase": "loss backward",
         "smallest_change": {"change", "peak_gib", "fits", "flags"?} | None}   # None when it fits

    ``world_size`` (the ranks torchrun started, from the log) plans each rank of a DDP run (kb/plan/strategy.py):
    every rank holds the whole model and DDP's gradient buckets. ``smallest_change`` is the first single change
    of the advice that fits, else the first combination that fits, else what ``kb plan --fit`` proposes with the
    log's sequence length kept (its ``flags`` are kb plan's options)."""
    from kb.plan.names import resolve
    from kb.plan.report import plan_document
    from kb.plan.shapes import ShapeError, from_config, known_models
    from kb.plan.spec import RunSpec, SpecError

    if not isinstance(model, str):
        return None
    mid = resolve(model)
    if mid is None:
        return None
    changes: dict[str, Any] = {}
    if batch is not None:
        changes["batch"] = batch
    if seq is not None:
        changes["seq"] = seq
    if quant is not None:
        name = QUANT_NAMES.get(str(quant).strip().lower())
        if name is None:
            return None
        changes["quant"] = name
    if lora_r is not None:
        changes["lora_r"] = lora_r
        if lora_r:
            changes["lora_alpha"] = 2 * lora_r
    if gpu_gib is not None:
        changes["gpu_gib"] = (gpu_gib,)
    if world_size is not None and world_size > 1:
        changes.update(strategy="ddp", gpus=world_size)
    try:
        spec = RunSpec(**changes)
        spec.check()
        shape = from_config(known_models()[mid], mid)
        doc = plan_document(shape, spec)
    except (SpecError, ShapeError, TypeError):
        return None
    run, gpu = doc["run"], max(doc["gpus"], key=lambda g: g["needs_gib"])
    settings = {k: run[k] for k in ("batch", "seq", "quant", "lora_r", "grad_ckpt", "kbit_prep", "compute_dtype")}
    verdict = {True: "fits", False: "does not fit", None: "GPU size unknown"}[doc["fits"]]
    train = "full fine-tuning" if run["lora_r"] == 0 else f"LoRA r={run['lora_r']}"
    quant_text = "" if run["quant"] == "none" else f"{run['quant']}, "
    on = f" on a {gpu_gib:g} GiB GPU" if gpu_gib is not None else ""
    summary = (f"kb plan: {mid}, {quant_text}{train}, batch {run['batch']} x {run['seq']} tokens, checkpointing "
               f"{run['grad_ckpt']}: needs {gpu['needs_gib']:.2f} GiB (peak {gpu['peak_allocated_gib']:.2f} allocated){on}: {verdict}")
    advice = [f"{a['change']}: {a['peak_allocated_gib']:.2f} GiB{' (fits)' if a['fits'] else ''}" for a in doc["to_fit"]]
    case = doc["case"]
    if spec.strategy == "ddp":
        settings.update(strategy="ddp", gpus=world_size)
    breakdown = {k: round(v, 2) for k, v in gpu["parts"].items() if round(v, 2) and k != "allocator_slack"}
    return {"model": mid, "settings": settings, "peak_gib": round(gpu["peak_allocated_gib"], 2),
            "needs_gib": round(gpu["needs_gib"], 2), "gpu_gib": gpu_gib, "fits": doc["fits"], "summary": summary,
            "advice": advice, "case": f"{case['id'] or ''} {case['slug']}".strip() if case else None,
            "notes": list(doc["notes"]), "breakdown": breakdown, "peak_phase": gpu["peak_phase"],
            "smallest_change": smallest_change(shape, spec, doc) if doc["fits"] is False else None}


def smallest_change(shape: Any, spec: Any, doc: dict[str, Any]) -> dict[str, Any] | None:
    """The least change that makes the run fit: the first single change of kb plan's advice that fits (most
    usual first), else its first combination that fits, else kb plan --fit's proposal at the log's sequence."""
    rows = [r for r in doc["to_fit"] if r["fits"]]
    single = [r for r in rows if " + " not in r["change"]]
    if single:
        return {"change": single[0]["change"], "peak_gib": single[0]["peak_allocated_gib"], "fits": True}
    from kb.plan.fit import fit_document
    from kb.plan.spec import SpecError

    try:  # the log's sequence, rank and effective batch kept
        best, fit = fit_document(shape, spec, {"seq", "lora_r"},
                                 effective_batch=spec.batch * spec.grad_accum)
    except SpecError:
        best = None
    if best is not None:
        return {"change": "kb plan --fit: " + " ".join(fit["flags"]), "peak_gib": fit["peak_allocated_gib"], "fits": True,
                "flags": fit["flags"]}
    if rows:
        return {"change": rows[0]["change"], "peak_gib": rows[0]["peak_allocated_gib"], "fits": True}
    return None
