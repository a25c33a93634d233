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
    if doc.get("trainer"):
        lines[-1:-1] = trainer_lines(doc["trainer"])
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
