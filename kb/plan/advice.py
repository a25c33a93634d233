"""What to change so that a run fits, each change with its predicted peak, and the case a run that does
not fit would hit (tables/plan-cases.toml)."""

from __future__ import annotations


from kb.plan.estimate import GIB, GpuPlan, estimate
from kb.knowledge.tables import read_table
from kb.plan.refs import case_summary
from kb.plan.shapes import ModelShape
from kb.plan.spec import RunSpec, SpecError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any


def candidates(shape: ModelShape, spec: RunSpec) -> list[tuple[str, RunSpec]]:
    """Single changes worth trying, most usual first (each keeps the effective batch), each applied to the run
    as the user would run it (defaults resolved: RunSpec.resolved)."""
    spec = spec.resolved()
    out: list[tuple[str, RunSpec]] = []
    if spec.grad_ckpt == "off":
        out.append(("gradient_checkpointing=True (use_reentrant=False)", spec.with_(grad_ckpt="nonreentrant")))
    b, a = spec.batch, spec.grad_accum
    while b > 1:
        b, a = max(1, b // 2), a * 2
        out.append((f"per_device_train_batch_size={b}, gradient_accumulation_steps={a}", spec.with_(batch=b, grad_accum=a)))
    if spec.optim in ("adamw_torch", "adamw_torch_fused", "paged_adamw_32bit") and spec.lora_r == 0:
        out.append(("optim='paged_adamw_8bit'", spec.with_(optim="paged_adamw_8bit")))
    trl = spec.trainer != "sft" and spec.task == "train"
    if trl and spec.ref in ("model", "adapter") and spec.trainer in ("dpo", "kto"):
        out.append(("precompute_ref_log_probs=True (no reference forward during training)", spec.with_(ref="precomputed")))
    if trl and spec.ref == "model" and spec.lora_r > 0:
        out.append(("ref_model=None: with a LoRA peft_config the reference is the adapter disabled (no second copy)",
                    spec.with_(ref="adapter")))
    if spec.quant == "none" and spec.lora_r > 0:
        out.append(_four_bit(spec))
    if len(spec.gpu_gib) >= 2:
        n, rest = shape.layers, len(spec.gpu_gib) - 1
        io_first = {"model.embed_tokens": 0, "model.rotary_emb": 0, "model.norm": 0, "lm_head": 0}
        if rest == 1:
            io_first["model.layers"] = 1
        else:  # the layers in equal runs over GPUs 1..: a key per layer (a model has at most MAX_LAYERS)
            io_first.update({f"model.layers.{i}": 1 + (i * rest) // n for i in range(n)})
        out.append(("device_map: embed_tokens, rotary_emb, norm, lm_head on GPU 0, decoder layers on the other GPU(s)",
                    spec.with_(device_map=io_first)))
    if spec.prep and not trl:  # a trl trainer decides for itself whether it calls prepare_model_for_kbit_training
        keep_ckpt = " + model.gradient_checkpointing_enable()" if spec.grad_ckpt != "off" else ""
        label = f"skip prepare_model_for_kbit_training's upcast: model.enable_input_require_grads(){keep_ckpt} instead"
        out.append((label, spec.with_(kbit_prep=False)))
    shorter = _shorter(spec)
    if shorter is not None:
        out.append(shorter)
    return out


def _four_bit(spec: RunSpec) -> tuple[str, RunSpec]:
    """Loading the base in 4-bit, labelled with what the trainer then does (tables/plan-trainers.toml): SFT and
    ORPO run prepare_model_for_kbit_training (the user's recipe, or ORPOTrainer itself); DPO, KTO, GRPO and the
    reward trainer do not, and cast the LoRA weights to bf16."""
    load = "load in 4-bit (BitsAndBytesConfig nf4, double quant)"
    four = spec.with_(quant="nf4", double_quant=True)
    if spec.trainer == "sft" or spec.task != "train":
        return f"{load} + prepare_model_for_kbit_training", four.with_(kbit_prep=True)
    from kb.plan.trainers import facts

    f = facts(spec.trainer)
    name = str(f["config"]).replace("Config", "Trainer")
    if f.get("kbit_prep"):
        return f"{load}: {name} runs prepare_model_for_kbit_training itself", four.with_(kbit_prep=True)
    return f"{load}: {name} casts the LoRA weights to bf16 (no prepare_model_for_kbit_training)", four.with_(kbit_prep=False)


def _shorter(spec: RunSpec) -> tuple[str, RunSpec] | None:
    """Half the sequence, by the option that sets it: SFT's max_length (max_seq_length before trl 0.20; the data
    itself for a plain Trainer), trl's max_length (the completion is truncated: keep_start) or, for GRPO,
    max_completion_length."""
    if spec.seq <= 512:
        return None
    note = "(shorter sequences: changes the data)"
    if spec.trainer == "sft" or spec.task != "train":
        return f"max_length={spec.seq // 2} (SFTConfig; max_seq_length in trl before 0.20) {note}", spec.with_(seq=spec.seq // 2)
    if spec.trainer == "grpo" and spec.completion_len and spec.completion_len > 1:
        comp = spec.completion_len // 2
        return (f"max_completion_length={comp} {note}",
                spec.with_(completion_len=comp, seq=(spec.prompt_len or 0) + comp))
    new = spec.seq // 2
    prompt = min(spec.prompt_len, new - 1) if spec.prompt_len is not None else None
    comp = new - prompt if prompt is not None else None
    return f"max_length={new} {note}", spec.with_(seq=new, prompt_len=prompt, completion_len=comp)


def fits(plans: list[GpuPlan]) -> bool | None:
    known = [p.fits for p in plans if p.fits is not None]
    return all(known) if known else None


def alternatives(shape: ModelShape, spec: RunSpec) -> list[dict[str, Any]]:
    """Each single change with its prediction; then changes combined, in order, until the run fits."""
    spec = spec.resolved()
    rows = []
    combined, applied = spec, []
    for label, alt in candidates(shape, spec):
        try:
            plans = estimate(shape, alt)
        except SpecError:
            continue
        worst = max(plans, key=lambda p: p.peak_reserved)
        rows.append({"change": label, "peak_allocated_gib": round(worst.peak_allocated / GIB, 2),
                     "peak_reserved_gib": round(worst.peak_reserved / GIB, 2), "gpu": worst.index, "fits": fits(plans)})
    if rows and not any(r["fits"] for r in rows):
        for label, _ in candidates(shape, spec):
            trial = _apply(combined, spec, label, shape)
            if trial is None:
                continue
            combined, applied = trial, applied + [label]
            plans = estimate(shape, combined)
            if fits(plans):
                worst = max(plans, key=lambda p: p.peak_reserved)
                rows.append({"change": " + ".join(applied), "peak_allocated_gib": round(worst.peak_allocated / GIB, 2),
                             "peak_reserved_gib": round(worst.peak_reserved / GIB, 2), "gpu": worst.index, "fits": True})
                break
    return rows


def _apply(current: RunSpec, original: RunSpec, label: str, shape: ModelShape) -> RunSpec | None:
    """The change named ``label`` (computed on ``original``) applied on top of ``current``."""
    for name, alt in candidates(shape, original):
        if name != label:
            continue
        changes = {k: getattr(alt, k) for k in alt.FIELDS if getattr(alt, k) != getattr(original, k)}
        if "batch" in changes and current.batch < changes["batch"]:
            return None
        try:
            trial = current.with_(**changes)
            estimate(shape, trial)
        except SpecError:
            return None
        return trial
    return None


def likely_case(plans: list[GpuPlan], spec: RunSpec) -> dict[str, Any] | None:
    """The first rule of tables/plan-cases.toml that holds on the first GPU that does not fit."""
    bad = [p for p in plans if p.fits is False] or [p for p in plans if p.tight]
    if not bad:
        return None
    p = bad[0]
    if p.fits:  # tight: only the allocator's slack does not fit
        spec_rules = [r for r in read_table("plan-cases")["rule"] if r["when"] == "reserved"]
        return {"slug": spec_rules[0]["slug"], "when": "reserved", "gpu": p.index, **case_summary(spec_rules[0]["slug"])} if spec_rules else None
    card = (p.total_gib or 0) * GIB - p.context - p.paged
    parts = p.parts
    held = {
        "setup": "setup" in p.phases and p.phases["setup"] * 1.0 > card * 0.98,
        "reserved": p.peak_allocated <= card < p.peak_reserved,
        "weights": spec.quant != "none" and (parts["weights"] + parts["kbit_prep_upcast"]) > 0.5 * p.peak_allocated,
        "activations": (parts["activations"] + parts["logits_and_loss"]) > 0.5 * p.peak_allocated,
    }
    rules = read_table("plan-cases")["rule"]
    for rule in rules:
        if held.get(rule["when"]):
            return {"slug": rule["slug"], "when": rule["when"], "gpu": p.index, **case_summary(rule["slug"])}
    return None
