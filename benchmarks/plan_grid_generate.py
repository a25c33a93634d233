"""Measure the GPU memory of inference with the KV cache (``model.generate``), for `kb plan --task generate`.

The companion of benchmarks/plan_grid.py (SFT), whose checkpoint writer and model shapes it reuses: a checkpoint
with random bf16 weights and the model's real shape (tables/plan-models.toml) is written once per model, loaded
with ``from_pretrained`` (bf16, or ``BitsAndBytesConfig`` nf4 with double quantization), then
``model.generate(input_ids, attention_mask, max_new_tokens=N, min_new_tokens=N, do_sample=False)`` on
batch x prompt_len random token ids: greedy, a DynamicCache (transformers' default), every row generating
exactly N tokens (min_new_tokens masks EOS).

Recorded per configuration (torch.cuda, reset right before ``generate``): allocated after loading; the peak
allocated / reserved over the whole call; the prefill's peak (up to the first generated token, read by a
streamer, then reset) and the decode's peak (the remaining tokens); allocated after the prefill and after the
last token; the attention implementation; the versions and the GPU.

Held out from fitting (decided before any measurement): every configuration whose id is a multiple of 3.

Usage (on the GPU machine; bitsandbytes installed from a wheel):
    python benchmarks/plan_grid_generate.py --out DIR [--only 1,2] [--budget-s 450]
    python benchmarks/plan_grid_generate.py --list
    python benchmarks/plan_grid_generate.py --cpu-smoke --out /tmp/x   # tiny shapes on the CPU: the code path only
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import plan_grid  # noqa: E402  (the SFT grid's checkpoint writer and model shapes)

GIB = 1024**3
HELD_OUT_RULE = "id % 3 == 0"


def cfg(id: int, model: str, *, quant: str = "none", batch: int = 1, prompt: int = 512, new: int = 256) -> dict[str, Any]:
    return {"id": id, "model": model, "quant": quant, "batch": batch, "prompt_len": prompt, "new_tokens": new,
            "held_out": id % 3 == 0}


# Ordered by the value of the measurement: the run stops starting configurations when its budget is spent.
GRID: list[dict[str, Any]] = [
    cfg(1, "qwen2.5-0.5b", batch=1, prompt=512, new=512),
    cfg(2, "qwen2.5-0.5b", batch=16, prompt=1024, new=256),
    cfg(3, "qwen2.5-0.5b", batch=8, prompt=2048, new=128),
    cfg(4, "qwen2.5-1.5b", batch=4, prompt=2048, new=256),
    cfg(5, "qwen2.5-1.5b", batch=16, prompt=512, new=512),
    cfg(6, "qwen2.5-1.5b", batch=1, prompt=128, new=1024),
    cfg(7, "llama-3.2-3b", batch=8, prompt=1024, new=256),
    cfg(8, "llama-3.2-3b", quant="nf4", batch=4, prompt=2048, new=256),
    cfg(9, "llama-3.2-3b", quant="nf4", batch=16, prompt=256, new=512),
    cfg(10, "llama-3.1-8b", quant="nf4", batch=8, prompt=1024, new=256),
    cfg(11, "llama-3.1-8b", quant="nf4", batch=2, prompt=2048, new=512),
    cfg(12, "gemma-2-2b", batch=4, prompt=1024, new=256),
    cfg(13, "gemma-2-2b", batch=16, prompt=512, new=128),
    cfg(14, "qwen2.5-0.5b", batch=16, prompt=2048, new=512),
    cfg(15, "llama-3.2-3b", batch=2, prompt=128, new=512),
    cfg(16, "llama-3.1-8b", quant="nf4", batch=16, prompt=512, new=128),
]

# One checkpoint per group, run in this order (the last groups are the ones a spent budget skips).
GROUPS: dict[str, list[int]] = {
    "qwen05": [1, 2, 3, 14], "llama3": [7, 8, 9, 15], "llama8": [10, 11, 16], "gemma2": [12, 13], "qwen15": [4, 5, 6],
}


class PhasePeaks:
    """A generate streamer: its first ``put`` is the prompt, its second the first generated token (the prefill's
    end), then one per token. Reads the prefill's peak at the second and resets it, so the rest is the decode's."""

    def __init__(self, cuda: bool) -> None:
        self.cuda = cuda
        self.calls = 0
        self.prefill: dict[str, float] = {}

    def put(self, value: Any) -> None:
        self.calls += 1
        if self.calls == 2 and self.cuda:
            import torch

            torch.cuda.synchronize()
            self.prefill = {"prefill_peak_alloc_gib": round(torch.cuda.max_memory_allocated() / GIB, 4),
                            "prefill_peak_reserved_gib": round(torch.cuda.max_memory_reserved() / GIB, 4),
                            "alloc_after_prefill_gib": round(torch.cuda.memory_allocated() / GIB, 4)}
            torch.cuda.reset_peak_memory_stats()

    def end(self) -> None:
        pass


def run_config(c: dict[str, Any], folder: Path, device: str, vocab: int) -> dict[str, Any]:
    import torch
    from transformers import AutoModelForCausalLM

    cuda = device == "cuda"
    if cuda:
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    out: dict[str, Any] = dict(c)
    kwargs = plan_grid.load_kwargs(c["quant"], True, cuda)
    t0 = time.time()
    model = AutoModelForCausalLM.from_pretrained(str(folder), **kwargs)
    model.eval()
    # plan_grid's checkpoints say use_cache=False (for training): generate would then recompute the whole sequence
    # at every step, without a KV cache (the first H100 run did: plan-grid-generate-h100-nocache.jsonl)
    model.generation_config.use_cache = True
    out["load_s"] = round(time.time() - t0, 1)
    mem = (lambda f: round(f() / GIB, 4)) if cuda else (lambda f: None)
    out["alloc_loaded_gib"] = mem(torch.cuda.memory_allocated)
    out["peak_load_gib"] = mem(torch.cuda.max_memory_allocated)
    out["attn_implementation"] = getattr(model.config, "_attn_implementation", None)
    g = torch.Generator().manual_seed(c["id"])
    ids = torch.randint(3, min(vocab, 30000), (c["batch"], c["prompt_len"]), generator=g).to(device)
    mask = torch.ones_like(ids)
    streamer = PhasePeaks(cuda)
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    out["alloc_before_generate_gib"] = mem(torch.cuda.memory_allocated)
    t0 = time.time()
    with torch.inference_mode():
        seqs = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=c["new_tokens"],
                              min_new_tokens=c["new_tokens"], do_sample=False, streamer=streamer, pad_token_id=0,
                              use_cache=True)
    if cuda:
        torch.cuda.synchronize()
    out["generate_s"] = round(time.time() - t0, 1)
    out["generated"] = int(seqs.shape[1] - c["prompt_len"])
    out.update(streamer.prefill)
    if cuda:
        out["decode_peak_alloc_gib"] = mem(torch.cuda.max_memory_allocated)
        out["decode_peak_reserved_gib"] = mem(torch.cuda.max_memory_reserved)
        out["peak_alloc_gib"] = max(out["decode_peak_alloc_gib"], out.get("prefill_peak_alloc_gib", 0.0))
        out["peak_reserved_gib"] = max(out["decode_peak_reserved_gib"], out.get("prefill_peak_reserved_gib", 0.0))
        out["alloc_after_generate_gib"] = mem(torch.cuda.memory_allocated)
    del model, seqs
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
    return out


def run_one(i: int, out_dir: Path, tiny: bool, keep: bool) -> None:
    """Write the configuration's checkpoint (if not there), run it, append one JSON line."""
    import torch

    device = "cuda" if torch.cuda.is_available() and not tiny else "cpu"
    c = next(c for c in GRID if c["id"] == i)
    if tiny:  # the code path only: a few tokens
        c = {**c, "batch": min(c["batch"], 2), "prompt_len": 16, "new_tokens": 4}
    root = Path(os.environ.get("KB_PLAN_CKPT", "/tmp/kb-plan-ckpt"))
    folder = root / (c["model"] + ("-tiny" if tiny else ""))
    if not (folder / "config.json").exists():
        secs = plan_grid.write_checkpoint(c["model"], folder, tiny, "cuda" if torch.cuda.is_available() else "cpu")
        print(f"[{c['model']}] wrote {folder} in {secs:.1f} s", flush=True)
    vocab = plan_grid.model_config(c["model"], tiny)["vocab_size"]
    t0 = time.time()
    try:
        result = run_config(c, folder, device, vocab)
    except Exception as exc:  # noqa: BLE001  (an OOM or a library error is a result too: record it)
        import traceback

        traceback.print_exc()
        result = {**c, "error": f"{type(exc).__name__}: {str(exc)[:400]}"}
    result["wall_s"] = round(time.time() - t0, 1)
    with open(out_dir / "generate-grid.jsonl", "a") as f:
        f.write(json.dumps(result) + "\n")
    print(f"config {i} {c['model']} {c['quant']} b{c['batch']} {c['prompt_len']}+{c['new_tokens']}: peak alloc "
          f"{result.get('peak_alloc_gib')} (prefill {result.get('prefill_peak_alloc_gib')}, decode "
          f"{result.get('decode_peak_alloc_gib')}) reserved {result.get('peak_reserved_gib')} GiB "
          f"{result.get('error', '')} ({result['wall_s']} s)", flush=True)
    if not tiny and not keep:
        shutil.rmtree(folder, ignore_errors=True)


def environment() -> dict[str, Any]:
    env = plan_grid.environment()
    env.pop("peft", None)
    return env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    ap.add_argument("--only", help="ids to run (comma-separated)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # the worker mode: one configuration in this process
    ap.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)  # keep the checkpoint for the next one
    ap.add_argument("--budget-s", type=float, default=450.0, help="start no configuration after this many seconds")
    ap.add_argument("--cpu-smoke", action="store_true", help="tiny shapes on the CPU: checks the code path only")
    ap.add_argument("--list", action="store_true")
    ns = ap.parse_args()
    if ns.list:
        for c in GRID:
            print(json.dumps(c))
        return 0
    ns.out.mkdir(parents=True, exist_ok=True)
    if ns.one is not None:
        run_one(ns.one, ns.out, ns.cpu_smoke, ns.keep)
        return 0
    meta = {"held_out_rule": HELD_OUT_RULE, "configs": len(GRID),
            "measure": "model.generate greedy, min_new_tokens = max_new_tokens; peak = torch.cuda.max_memory_allocated/"
                       "reserved reset before generate; prefill peak read at the first generated token, then reset",
            "environment": environment(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (ns.out / f"generate-env-{int(time.time())}.json").write_text(json.dumps(meta, indent=1))
    print(json.dumps(meta), flush=True)
    start = time.time()
    wanted = {int(i) for i in ns.only.split(",")} if ns.only else None
    chosen = [c["id"] for c in GRID if wanted is None or c["id"] in wanted]
    # One process per configuration; a group's checkpoint is kept until the last of its chosen configurations.
    order = [i for g in GROUPS.values() for i in g if i in chosen]
    for i in order:
        if time.time() - start > ns.budget_s:
            print(f"budget spent: config {i} not started", flush=True)
            continue
        group = next(g for g in GROUPS.values() if i in g)
        later = [j for j in order if j in group and order.index(j) > order.index(i)]
        cmd = [sys.executable, __file__, "--one", str(i), "--out", str(ns.out)]
        cmd += (["--cpu-smoke"] if ns.cpu_smoke else []) + (["--keep"] if later else [])
        rc = subprocess.call(cmd)
        print(f"config {i}: exit {rc} at {time.time() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
