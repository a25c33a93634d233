"""`kb plan --fit`: given the cards and the model, the configuration that fits with the largest useful
micro-batch and sequence (docs/plan.md, "--fit").

The search walks settings from the one that costs the run least (quality or speed) to the one that saves the
most memory, and stops at the first that fits at micro-batch 1; then it doubles the micro-batch (halving the
accumulation, the effective batch kept) while it still fits. Only when nothing fits at the target sequence does
it halve the sequence. "Fits" here means with the allocator's usual slack (not ``tight``): a proposal should not
depend on the allocator giving back its cache. Options the user gave are kept as given; the search changes only
the others. Every plan tried is returned with its predicted peak (``steps``).

Order of the settings (each tried under every strategy the GPUs allow before the next one):
LoRA (default): bf16 LoRA; + gradient checkpointing; 4-bit QLoRA with prepare_model_for_kbit_training; without its
fp32 upcast; + rank 8 and a paged 8-bit optimizer. Full fine-tuning (``--lora-r 0``): as is; + checkpointing;
+ 8-bit AdamW; + paged 8-bit AdamW. Strategies on several GPUs: DDP, ZeRO-2, FSDP, ZeRO-3, ZeRO-3 with the
optimizer offloaded, then (quantized or not) the layers spread over the GPUs (device-map).
"""

from __future__ import annotations


from kb.plan.estimate import GIB, estimate
from kb.plan.shapes import ModelShape
from kb.plan.spec import RunSpec, SpecError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

DEFAULT_SEQ = 2048  # the target sequence when --seq is not given
DEFAULT_EFFECTIVE_BATCH = 16  # micro-batch x accumulation kept while the micro-batch grows, unless given
MIN_SEQ = 256
MAX_MICRO_BATCH = 64

LORA_LEVELS: list[dict[str, Any]] = [
    {"quant": "none", "grad_ckpt": "off"},
    {"quant": "none", "grad_ckpt": "nonreentrant"},
    {"quant": "nf4", "double_quant": True, "kbit_prep": True, "grad_ckpt": None},
    {"quant": "nf4", "double_quant": True, "kbit_prep": False, "grad_ckpt": "nonreentrant"},
    {"quant": "nf4", "double_quant": True, "kbit_prep": False, "grad_ckpt": "nonreentrant", "lora_r": 8,
     "optim": "paged_adamw_8bit"},
]
FULL_LEVELS: list[dict[str, Any]] = [
    {"grad_ckpt": "off"},
    {"grad_ckpt": "nonreentrant"},
    {"grad_ckpt": "nonreentrant", "optim": "adamw_8bit"},
    {"grad_ckpt": "nonreentrant", "optim": "paged_adamw_8bit"},
]
MULTI_STRATEGIES: list[tuple[str, str]] = [("ddp", "none"), ("zero2", "none"), ("fsdp", "none"), ("zero3", "none"),
                                           ("zero3", "optimizer"), ("device-map", "none")]


def flags(spec: RunSpec) -> list[str]:
    """The kb plan options that plan ``spec`` (what --fit proposes, as one would type it)."""
    out = []
    if spec.lora_r == 0:
        out += ["--lora-r", "0"]
    else:
        out += ["--lora-r", str(spec.lora_r)]
    if spec.quant != "none":
        out += ["--quant", spec.quant] + ([] if spec.double_quant else ["--no-double-quant"])
        out += [] if spec.kbit_prep is not False else ["--no-kbit-prep"]
    if spec.grad_ckpt == "off":
        out.append("--no-grad-ckpt")
    elif spec.grad_ckpt is not None:
        out += ["--grad-ckpt"] + (["--reentrant"] if spec.grad_ckpt == "reentrant" else [])
    if spec.optim != "adamw_torch":
        out += ["--optim", spec.optim]
    out += ["--batch", str(spec.batch), "--grad-accum", str(spec.grad_accum), "--seq", str(spec.seq)]
    if spec.strategy:
        out += ["--strategy", spec.strategy]
        if spec.offload != "none":
            out += ["--offload", spec.offload]
    if spec.gpus and len(spec.gpu_gib) <= 1:
        out += ["--gpus", str(spec.gpus)]
    if spec.gpu_gib:
        out += ["--gpu-gib", *(f"{g:g}" for g in spec.gpu_gib)]
    return out


def _levels(spec: RunSpec, fixed: set[str]) -> list[dict[str, Any]]:
    """The settings to try, the user's own options kept (a level that would change one is adjusted, then deduped)."""
    levels = FULL_LEVELS if spec.lora_r == 0 else LORA_LEVELS
    out: list[dict[str, Any]] = []
    for level in levels:
        kept = {k: v for k, v in level.items() if k not in fixed}
        if spec.lora_r == 0 and "quant" in kept:
            kept.pop("quant")
        if kept not in out:
            out.append(kept)
    return out


def _strategies(spec: RunSpec, fixed: set[str], n: int) -> list[tuple[str | None, str]]:
    if "strategy" in fixed:
        return [(spec.strategy, spec.offload)]
    if n == 1:
        return [(None, "none")]
    return list(MULTI_STRATEGIES)


def _try(shape: ModelShape, trial: RunSpec, steps: list[dict[str, Any]]) -> bool | None:
    """Plan ``trial``, record the step; True when every GPU fits with the allocator's slack, None if refused."""
    try:
        plans = estimate(shape, trial)
    except SpecError as exc:
        steps.append({"flags": " ".join(flags(trial)), "refused": str(exc)[:200]})
        return None
    worst = max(plans, key=lambda p: p.peak_reserved + p.context + p.paged)
    ok = all(p.fits and not p.tight for p in plans)
    steps.append({"flags": " ".join(flags(trial)), "peak_allocated_gib": round(worst.peak_allocated / GIB, 2),
                  "needs_gib": round((worst.peak_allocated + worst.context + worst.paged) / GIB, 2),
                  "needs_with_slack_gib": round((worst.peak_reserved + worst.context + worst.paged) / GIB, 2),
                  "gpu": worst.index, "fits": ok})
    return ok


def search(shape: ModelShape, spec: RunSpec, fixed: set[str],
           effective_batch: int | None = None) -> tuple[RunSpec | None, list[dict[str, Any]]]:
    """The proposed run (None if nothing fits) and every step of the search, in order. ``effective_batch``:
    micro-batch x accumulation to keep (default: the run's, when its batch or accumulation was given, else 16)."""
    if not spec.gpu_gib:
        raise SpecError("--fit needs the cards: --gpu-gib X (with --gpus N for N such cards, or one size per GPU)")
    n = spec.gpus or len(spec.gpu_gib)
    base = spec.with_(gpus=n if n > 1 else None, gpu_gib=spec.gpu_gib if len(spec.gpu_gib) > 1 else spec.gpu_gib * n)
    if n > 1:
        base = base.with_(gpus=None)  # the sizes say how many GPUs
    effective = effective_batch or (spec.batch * spec.grad_accum if ({"batch", "grad_accum"} & fixed) else DEFAULT_EFFECTIVE_BATCH)
    seq = spec.seq if "seq" in fixed else DEFAULT_SEQ
    seqs = [seq] if "seq" in fixed else []
    while not seqs or seqs[-1] // 2 >= MIN_SEQ:
        seqs.append(seqs[-1] // 2 if seqs else seq)
    steps: list[dict[str, Any]] = []
    micro_fixed = "batch" in fixed
    for target_seq in seqs:
        for level in _levels(spec, fixed):
            for strategy, offload in _strategies(spec, fixed, n):
                if strategy == "device-map" and n == 1:
                    continue
                first = spec.batch if micro_fixed else 1
                trial = base.with_(**level, strategy=strategy, offload=offload, seq=target_seq, batch=first,
                                   grad_accum=max(1, effective // first), device_map=None)
                if not _try(shape, trial, steps):
                    continue
                best = trial
                b = 2
                while not micro_fixed and b <= min(effective, MAX_MICRO_BATCH):
                    bigger = trial.with_(batch=b, grad_accum=max(1, effective // b))
                    if not _try(shape, bigger, steps):
                        break
                    best, b = bigger, b * 2
                return best, steps
    return None, steps


def fit_document(shape: ModelShape, spec: RunSpec, fixed: set[str],
                 effective_batch: int | None = None) -> tuple[RunSpec | None, dict[str, Any]]:
    """(the proposed run, the JSON ``fit`` object: the proposal's flags and peak, and every step of the search)."""
    best, steps = search(shape, spec, fixed, effective_batch)
    doc: dict[str, Any] = {"found": best is not None, "kept": sorted(fixed), "steps": steps}
    if best is not None:
        plans = estimate(shape, best)
        worst = max(plans, key=lambda p: p.peak_reserved + p.context + p.paged)
        doc.update(flags=flags(best), command="kb plan --model " + shape.name + " " + " ".join(flags(best)),
                   peak_allocated_gib=round(worst.peak_allocated / GIB, 2),
                   needs_gib=round((worst.peak_allocated + worst.context + worst.paged) / GIB, 2),
                   needs_with_slack_gib=round((worst.peak_reserved + worst.context + worst.paged) / GIB, 2),
                   gpu_gib=list(best.gpu_gib),
                   proposed={"quant": best.quant, "kbit_prep": best.prep, "lora_r": best.lora_r,
                             "grad_ckpt": best.resolved().grad_ckpt, "optim": best.optim, "batch": best.batch,
                             "grad_accum": best.grad_accum, "seq": best.seq, "strategy": best.strategy or "single",
                             "offload": best.offload})
    return best, doc
