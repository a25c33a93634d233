"""`kb plan`'s text: the plan document (kb/plan/report.py) as a terminal reads it."""

from __future__ import annotations

from typing import Any


def render_text(doc: dict[str, Any]) -> str:
    m, r = doc["model"], doc["run"]
    quant = r["quant"] + (" +double-quant" if r["quant"] in ("nf4", "fp4") and r["double_quant"] else "")
    train = "full fine-tuning" if r["lora_r"] == 0 else f"LoRA r={r['lora_r']} on {r['target_modules']}"
    lines = [
        (f"kb plan: {m['name']} ({m['model_type']}, {m['params'] / 1e9:.2f}B parameters), {quant}"
         f"{', prepare_model_for_kbit_training' if r['kbit_prep'] else ''}, {train}"),
        (f"  batch {r['batch']} x {r['seq']} tokens (accumulation {r['grad_accum']}), checkpointing {r['grad_ckpt']}, "
         f"{r['optim']}, {r['compute_dtype']}{'' if r['autocast'] else ' (no autocast)'}, {r['attn']}"),
        "",
    ]
    if r.get("task") == "generate":  # inference: no adapter, optimizer or checkpointing to speak of
        lines[:2] = [f"kb plan: {m['name']} ({m['model_type']}, {m['params'] / 1e9:.2f}B parameters), {quant}, inference",
                     f"  {r['compute_dtype']}, {r['attn']}"]
    if doc.get("trainer"):
        lines[-1:-1] = trainer_lines(doc["trainer"])
    lines += strategy_lines(doc)
    for g in doc["gpus"]:
        verdict = {True: "fits", False: "DOES NOT FIT", None: "no --gpu-gib given"}[g["fits"]]
        if g["tight"]:
            verdict = "fits only if the allocator can give back its cached slack (tight)"
        size = f"{g['total_gib']} GiB" if g["total_gib"] else "size not given"
        lines.append(f"GPU {g['index']} ({size}; holds {', '.join(g['holds']) or 'nothing'}): {verdict}")
        lines.append(f"  peak {g['peak_allocated_gib']:.2f} GiB allocated, {g['peak_reserved_gib']:.2f} GiB reserved, "
                     f"+ {g['cuda_context_gib']:.2f} GiB CUDA context"
                     + (f" + {g['paged_optimizer_gib']:.2f} GiB paged optimizer states" if g["paged_optimizer_gib"] else "")
                     + f" = {g['needs_gib']:.2f} GiB ({g['needs_with_slack_gib']:.2f} with the reserved slack)")
        lines.append(f"  when: {g['when']}")
        parts = "  ".join(f"{k.replace('_', ' ')} {v:.2f}" for k, v in g["parts"].items() if v)
        lines.append(f"  parts (GiB): {parts}")
    if doc["to_fit"]:
        lines += ["", "To fit (predicted peak on the fullest GPU, allocated / reserved GiB):"]
        for a in doc["to_fit"]:
            mark = "fits" if a["fits"] else ("does not fit" if a["fits"] is False else "")
            lines.append(f"  - {a['change']}: {a['peak_allocated_gib']:.2f} / {a['peak_reserved_gib']:.2f} {mark}")
    if doc["case"]:
        c = doc["case"]
        lead = "If it fails, most likely" if doc["fits"] else "Otherwise this run would likely hit"
        lines += ["", f"{lead}: {c['id'] or ''} {c['slug']} ({c['more']})".replace("  ", " ")]
    for n in doc["notes"]:
        lines.append(f"note: {n}")
    lines += fit_lines(doc)
    lines.append("")
    lines.append("How this is computed and how well it matched measured runs: docs/plan.md")
    return "\n".join(lines) + "\n"


def trainer_lines(t: dict[str, Any]) -> list[str]:
    """The trainer (or generation) as planned, and the trl versions the arithmetic holds for."""
    if t.get("task") == "generate":
        return [f"  generation: {t['batch']} sequences x {t['context']} tokens with the KV cache"
                + (f" (prompt {t['prompt_len']})" if t.get("prompt_len") else "")]
    ref = {"model": "a separate reference model", "adapter": "the LoRA adapter disabled as reference",
           "precomputed": "precomputed reference log-probs", "none": "no reference"}[t["reference"]]
    head = {"fused": "trl's fused LM head (log-probs in tiles)", "logits": "full logits", "score": "a score head"}[t["head"]]
    shape = f"{t['rows']} rows x {t['sequence']} tokens"
    if t["name"] == "grpo":
        shape += f", {t['generation_batch']} completions generated ({t['num_generations']} per prompt)"
    trl = t["trl"]
    where = (f"installed trl {trl['installed']}" + ("" if trl["installed_in_range"] else ", OUTSIDE that range")
             if trl["installed"] else "trl not installed here")
    return [f"  trainer {t['name']} ({t['config']}): {shape}; {ref}; {head}",
            f"  trl {trl['versions']} (measured on {trl['measured']}; {where})"]


def strategy_lines(doc: dict[str, Any]) -> list[str]:
    """--strategy: how the GPUs are used and what each rank holds (kb/plan/strategy.py)."""
    st = doc.get("strategy")
    if not st or not st.get("per_rank"):
        return []
    name = st["name"] + (f" ({st['fsdp_sharding']})" if st.get("fsdp_sharding") else "")
    off = f", offload {st['offload']} ({st['cpu_offload_gib_per_rank']:.2f} GiB of host memory per rank)" if st["offload"] != "none" else ""
    out = [f"strategy: {name} on {st['gpus']} GPUs, one process each (the figures below are per rank){off}",
           f"  sharded over the ranks: {st['sharded']}; global batch {st['global_batch']}"]
    extra = []
    if st["communication_buckets_gib"]:
        extra.append(f"communication buckets {st['communication_buckets_gib']:.2f} GiB")
    if st.get("gathered_unit_gib"):
        extra.append(f"all-gathered unit (one decoder layer) {st['gathered_unit_gib']:.2f} GiB, "
                     f"gathered at the loss {st['gathered_at_loss_gib']:.2f} GiB")
    if extra:
        out.append("  " + "; ".join(extra))
    for o in st.get("offload_options", []):
        mark = {True: "fits", False: "does not fit", None: ""}[o["fits"]]
        out.append(f"  offload {o['offload']}: peak {o['peak_allocated_gib']:.2f} GiB per GPU, host "
                   f"{o['cpu_gib_per_rank']:.2f} GiB per rank {mark}".rstrip())
    return out + [""]


def fit_lines(doc: dict[str, Any]) -> list[str]:
    """--fit: every step of the search with its predicted peak, then the proposal (kb/plan/fit.py)."""
    fit = doc.get("fit")
    if not fit:
        return []
    out = ["", "Search (--fit; needs = peak allocated + context, with the allocator's slack):"]
    for i, step in enumerate(fit["steps"], 1):
        if "refused" in step:
            out.append(f"  {i:>2}. {step['flags']}: refused ({step['refused']})")
        else:
            out.append(f"  {i:>2}. {step['flags']}: {step['needs_gib']:.2f} / {step['needs_with_slack_gib']:.2f} GiB "
                       f"{'fits' if step['fits'] else 'no'}")
    if fit["found"]:
        out.append(f"Proposed ({fit['needs_with_slack_gib']:.2f} GiB with slack): {fit['command']}")
    else:
        out.append("Nothing in the search fits these cards: more or larger GPUs, or a smaller model.")
    return out
