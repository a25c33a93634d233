"""`kb plan`'s answer: the JSON document (schema ``kb-plan/1``, docs/plan.md) and its text rendering."""

from __future__ import annotations


from kb.plan.advice import alternatives, fits, likely_case
from kb.plan.estimate import GIB, GpuPlan, estimate, unplaced_keys
from kb.plan.refs import case_ref
from kb.plan.shapes import ModelShape
from kb.plan.spec import RunSpec
from kb.plan.trainers import trainer_document

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

SCHEMA = "kb-plan/1"
PHASE_WHEN = {
    "loss backward": "end of the forward pass / loss backward (all kept activations + logits), step 2 on",
    "recompute": "backward, while a checkpointed layer is recomputed",
    "optimizer step": "optimizer step (gradients + states + temporaries)",
    "setup": "prepare_model_for_kbit_training (fp32 copy of the largest bf16 matrix next to the original)",
    # trl's trainers and generation (kb/plan/trainers.py)
    "reference forward": "the reference's no_grad forward, after the policy's (its activations held)",
    "generation": "generating the completions (model.generate with the KV cache, under no_grad)",
    "prefill": "the prompt's forward (the KV cache filled, one layer's activations)",
    "decode": "the last generated token (the whole KV cache)",
}


def _gib(x: float) -> float:
    return round(x / GIB, 3)


def gpu_doc(p: GpuPlan) -> dict[str, Any]:
    return {
        "index": p.index, "total_gib": p.total_gib,
        "holds": list(p.modules) + ([f"{p.layers} decoder layers"] if p.layers else []),
        "peak_allocated_gib": _gib(p.peak_allocated), "peak_reserved_gib": _gib(p.peak_reserved),
        "peak_phase": p.peak_phase, "when": PHASE_WHEN.get(p.peak_phase, p.peak_phase),
        "parts": {k: _gib(v) for k, v in p.parts.items()},
        "phases": {k: _gib(v) for k, v in p.phases.items()},
        "cuda_context_gib": _gib(p.context), "paged_optimizer_gib": _gib(p.paged),
        "needs_gib": _gib(p.peak_allocated + p.context + p.paged),
        "needs_with_slack_gib": _gib(p.peak_reserved + p.context + p.paged), "fits": p.fits, "tight": p.tight,
    }


def _keys(keys: list[str]) -> str:
    """Up to four of the user's device-map keys, each escaped (repr: no control character reaches the terminal) and
    cut to 60 characters (review50b: a 1 MiB file's one key is not a note); kb plan's CLI redacts the notes."""
    shown = ", ".join(_cut(repr(k)[1:-1]) or '""' for k in keys[:4])
    return shown + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")


def _cut(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def plan_document(shape: ModelShape, spec: RunSpec) -> dict[str, Any]:
    """The plan of ``spec`` (its defaults resolved as the libraries resolve them: RunSpec.resolved)."""
    spec = spec.resolved()
    plans = estimate(shape, spec)
    ok = fits(plans)
    notes = list(spec.notes)
    if isinstance(spec.device_map, dict) and not any(k in spec.device_map for k in ("", "model", "model.rotary_emb")):
        notes.append(f"the device map places no model.rotary_emb: it stays on the CPU ({case_ref('rotary-not-placed')})")
    if isinstance(spec.device_map, dict):
        unknown, finer = unplaced_keys(shape, spec.device_map)
        if unknown:
            notes.append(f"--device-map keys naming no module of this model ({shape.layers} layers, model.layers.0 to "
                         f"model.layers.{shape.layers - 1}), not planned (a typo?): {_keys(unknown)}")
        if finer:
            notes.append(f"--device-map keys below a whole layer or module, not planned (kb places whole modules): {_keys(finer)}")
    holder = {m: p.index for p in plans for m in p.modules}
    if not shape.tied and holder.get("model.embed_tokens") != holder.get("lm_head"):
        notes.append("lm_head and embed_tokens on different GPUs: the loss may see logits and labels on two devices "
                     f"({case_ref('embeddings-split')})")
    if spec.quant in ("int8", "fp4") or spec.attn != "sdpa" or spec.compute_dtype == "fp32":
        notes.append("not in the measured grid (int8, fp4, eager/flash attention, fp32 compute are computed, not validated)")
    doc = {
        "schema": SCHEMA,
        "model": {"name": shape.name, "model_type": shape.model_type, "params": shape.total_params(),
                  "layers": shape.layers, "hidden_size": shape.hidden, "vocab_size": shape.vocab, "tied_embeddings": shape.tied},
        "run": {"quant": spec.quant, "double_quant": spec.double_quant, "compute_dtype": spec.compute_dtype,
                "kbit_prep": spec.prep, "lora_r": spec.lora_r, "lora_alpha": spec.lora_alpha, "lora_dropout": spec.lora_dropout,
                "target_modules": spec.target_modules, "batch": spec.batch, "seq": spec.seq, "grad_accum": spec.grad_accum,
                "grad_ckpt": spec.grad_ckpt, "optim": spec.optim, "attn": spec.attn, "autocast": spec.autocast,
                "trainer": spec.trainer, "task": spec.task},
        "trainer": trainer_document(spec),
        "gpus": [gpu_doc(p) for p in plans],
        "fits": ok,
        "to_fit": alternatives(shape, spec) if ok is False else [],
        "case": likely_case(plans, spec),
        "notes": notes,
    }
    if spec.strategy is not None:  # --strategy: per-rank figures, what is sharded, offload options (kb/plan/strategy.py)
        from kb.plan.strategy import strategy_alternatives, strategy_doc

        doc["strategy"] = strategy_doc(shape, spec) or {"name": spec.strategy, "gpus": len(plans), "per_rank": False}
        if ok is False and doc["strategy"]["per_rank"]:
            doc["to_fit"] = [*doc["to_fit"], *strategy_alternatives(shape, spec)]
    return doc
