"""Measure the GPU memory of fine-tuning steps, for `kb plan`'s error table (benchmarks/plan_error.py).

Each configuration of GRID is run as users run it: a checkpoint with random bf16 weights and the model's
real shape (tables/plan-models.toml) is written to disk once per model, loaded with
``from_pretrained`` (``BitsAndBytesConfig`` for 4-bit), optionally ``prepare_model_for_kbit_training``,
wrapped in LoRA (or trained in full), then 3 steps of ``transformers.Trainer``. Recorded per
configuration: allocated after loading and after setup, torch's peak allocated / reserved over the 3
steps (reset right before ``trainer.train()``) and per step, the setup peak (prep's upcast), and
``mem_get_info``'s device-wide use (CUDA context included).

Held out from fitting (decided before any measurement): every configuration whose id is a multiple of 3.

Usage (on the GPU machine, one process per model group so nothing leaks between models):
    python benchmarks/plan_grid.py --out DIR [--groups g1,g2] [--budget-s 520]
    python benchmarks/plan_grid.py --list
A CPU smoke test of the code path: ``--cpu-smoke`` (tiny shapes, bf16 only, no memory figures).
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
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODELS_TOML = Path(os.environ.get("KB_PLAN_MODELS", HERE.parent / "tables" / "plan-models.toml"))
GIB = 1024**3
HELD_OUT_RULE = "id % 3 == 0"
ALL = "all-linear"


def cfg(id: int, model: str, *, r: int = 16, quant: str = "none", prep: bool = False, dq: bool = True,
        targets: str = ALL, dropout: float = 0.05, batch: int = 1, seq: int = 1024, gc: str = "off",
        optim: str = "adamw_torch") -> dict[str, Any]:
    return {"id": id, "model": model, "lora_r": r, "quant": quant, "kbit_prep": prep, "double_quant": dq,
            "targets": targets, "lora_dropout": dropout, "batch": batch, "seq": seq, "grad_ckpt": gc, "optim": optim,
            "held_out": id % 3 == 0}


NR, RE = "nonreentrant", "reentrant"
GRID: list[dict[str, Any]] = [
    # Qwen2.5-0.5B: full fine-tuning (bf16 weights) and bf16 LoRA
    cfg(1, "qwen2.5-0.5b", r=0, batch=4, seq=512),
    cfg(2, "qwen2.5-0.5b", r=0, batch=2, seq=1024, gc=NR, optim="adafactor"),
    cfg(3, "qwen2.5-0.5b", r=0, batch=1, seq=2048, optim="sgd"),
    cfg(4, "qwen2.5-0.5b", batch=8, seq=512),
    cfg(5, "qwen2.5-0.5b", r=8, targets="q_proj,v_proj", batch=2, seq=4096, gc=NR),
    # Qwen2.5-1.5B bf16 LoRA (KB0035's shape)
    cfg(6, "qwen2.5-1.5b", batch=1, seq=2048),
    cfg(7, "qwen2.5-1.5b", batch=1, seq=2048, gc=NR),
    cfg(8, "qwen2.5-1.5b", batch=4, seq=1024, gc=NR, optim="paged_adamw_8bit"),
    cfg(9, "qwen2.5-1.5b", r=64, batch=2, seq=1024, optim="adafactor", dropout=0.0),
    cfg(10, "qwen2.5-1.5b", batch=2, seq=2048, gc=RE),
    # Llama-3.2-1B bf16 LoRA
    cfg(11, "llama-3.2-1b", batch=4, seq=1024),
    cfg(12, "llama-3.2-1b", batch=8, seq=2048, gc=NR, optim="adamw_8bit"),
    cfg(13, "llama-3.2-1b", r=32, targets="q_proj,k_proj,v_proj,o_proj", batch=2, seq=4096, gc=NR, optim="sgd"),
    # Llama-3.2-3B 4-bit QLoRA
    cfg(14, "llama-3.2-3b", quant="nf4", prep=True, batch=4, seq=1024, gc=NR, optim="paged_adamw_8bit"),
    cfg(15, "llama-3.2-3b", quant="nf4", prep=False, batch=2, seq=2048, gc=NR),
    cfg(16, "llama-3.2-3b", quant="nf4", prep=True, batch=2, seq=512),
    # Phi-3-mini bf16 LoRA and 4-bit QLoRA
    cfg(17, "phi-3-mini", batch=2, seq=1024),
    cfg(18, "phi-3-mini", batch=4, seq=2048, gc=NR),
    cfg(19, "phi-3-mini", r=8, targets="qkv_proj,o_proj", batch=1, seq=4096, gc=NR, optim="adafactor"),
    cfg(20, "phi-3-mini", quant="nf4", prep=True, batch=2, seq=2048, gc=NR, optim="paged_adamw_8bit"),
    cfg(21, "phi-3-mini", quant="nf4", prep=False, dq=False, batch=1, seq=1024),
    # Mistral-7B bf16 LoRA and 4-bit QLoRA
    cfg(22, "mistral-7b", batch=1, seq=2048, gc=NR),
    cfg(23, "mistral-7b", batch=2, seq=1024),
    cfg(24, "mistral-7b", quant="nf4", prep=True, batch=4, seq=2048, gc=NR, optim="paged_adamw_8bit"),
    cfg(25, "mistral-7b", quant="nf4", prep=False, batch=8, seq=1024, gc=NR, optim="adamw_8bit"),
    cfg(26, "mistral-7b", quant="nf4", prep=True, r=64, batch=1, seq=4096),
    # Qwen2.5-7B 4-bit QLoRA
    cfg(27, "qwen2.5-7b", quant="nf4", prep=True, batch=2, seq=2048, gc=NR),
    cfg(28, "qwen2.5-7b", quant="nf4", prep=False, targets="q_proj,k_proj,v_proj,o_proj", batch=1, seq=1024, optim="sgd"),
    # Llama-3.1-8B 4-bit QLoRA
    cfg(29, "llama-3.1-8b", quant="nf4", prep=True, batch=1, seq=4096, gc=NR, optim="paged_adamw_8bit"),
    cfg(30, "llama-3.1-8b", quant="nf4", prep=False, batch=4, seq=1024, gc=NR, optim="adafactor"),
    # Qwen2.5-14B 4-bit QLoRA (the Kelron model)
    cfg(31, "qwen2.5-14b", quant="nf4", prep=True, batch=1, seq=1024, gc=NR),
    cfg(32, "qwen2.5-14b", quant="nf4", prep=False, batch=2, seq=2048, gc=NR, optim="paged_adamw_8bit"),
    cfg(33, "qwen2.5-14b", quant="nf4", prep=True, batch=4, seq=512, optim="adamw_8bit"),
    # added before their measurement, same held-out rule: Gemma-2 (256k vocabulary) and Qwen2.5-3B
    cfg(34, "gemma-2-2b", batch=2, seq=1024, gc=NR),
    cfg(35, "gemma-2-2b", quant="nf4", prep=True, batch=1, seq=2048, gc=NR, optim="paged_adamw_8bit"),
    cfg(36, "gemma-2-2b", batch=1, seq=1024),
    cfg(37, "qwen2.5-3b", quant="nf4", prep=True, batch=2, seq=1024),
    cfg(38, "qwen2.5-3b", batch=1, seq=4096, gc=RE),
    cfg(39, "qwen2.5-3b", r=0, batch=1, seq=1024, gc=NR),
]

# One subprocess per group: a model and the configurations that load it.
GROUPS: dict[str, list[int]] = {
    "qwen05": [1, 2, 3, 4, 5], "qwen15": [6, 7, 8, 9, 10], "llama1": [11, 12, 13], "llama3": [14, 15, 16],
    "phi3": [17, 18, 19, 20, 21], "mistral": [22, 23, 24, 25, 26], "qwen7": [27, 28], "llama8": [29, 30],
    "qwen14": [31, 32, 33], "gemma2": [34, 35, 36], "qwen3b": [37, 38, 39],
}

TINY = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "vocab_size": 512, "head_dim": 16}


def model_config(name: str, tiny: bool = False) -> dict[str, Any]:
    shapes = tomllib.loads(MODELS_TOML.read_text())  # read as a plain file: this script also runs where kb is not importable
    c = {k: v for k, v in shapes[name].items() if k != "hub_id"}
    if tiny:
        c.update(TINY)
        if c["model_type"] == "phi3":
            c.pop("head_dim")
            c["num_key_value_heads"] = 4
    c.update(torch_dtype="bfloat16", use_cache=False, bos_token_id=1, eos_token_id=2, pad_token_id=0,
             max_position_embeddings=max(8192, c.get("max_position_embeddings", 0)))
    return c


def write_checkpoint(name: str, folder: Path, tiny: bool, device: str) -> float:
    """Random bf16 weights with the model's real shape, written as safetensors shards; returns seconds."""
    import torch
    from safetensors.torch import save_file
    from transformers import AutoConfig, AutoModelForCausalLM

    t0 = time.time()
    c = model_config(name, tiny)
    config = AutoConfig.for_model(**c)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    tied = bool(c.get("tie_word_embeddings"))
    gen = torch.Generator(device=device).manual_seed(0)
    folder.mkdir(parents=True, exist_ok=True)
    weight_map: dict[str, str] = {}
    shard: dict[str, Any] = {}
    shard_bytes, n, total = 0, 0, 0

    def flush() -> None:
        nonlocal shard, shard_bytes, n
        if shard:
            fname = f"model-{n:05d}.safetensors"
            save_file(shard, str(folder / fname), metadata={"format": "pt"})
            weight_map.update({k: fname for k in shard})
            shard, shard_bytes, n = {}, 0, n + 1

    for key, p in model.state_dict().items():
        if tied and key == "lm_head.weight":
            continue
        t = torch.empty(p.shape, dtype=torch.bfloat16, device=device)
        if p.dim() == 1:
            t.fill_(1.0 if "norm" in key and c["model_type"] not in ("gemma", "gemma2") else 0.0)
        else:
            t.normal_(0.0, 0.02, generator=gen)
        shard[key] = t.cpu()
        shard_bytes += t.numel() * 2
        total += t.numel() * 2
        if shard_bytes >= 2 * GIB:
            flush()
    flush()
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}))
    config.save_pretrained(str(folder))
    del model
    return time.time() - t0


class TokenRows:
    """Fixed-length rows of random token ids (labels = input_ids), as a map-style dataset."""

    def __init__(self, rows: int, seq: int, vocab: int) -> None:
        import torch

        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(3, min(vocab, 30000), (rows, seq), generator=g)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> dict[str, Any]:
        import torch

        ids = self.ids[i]
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}


def load_kwargs(quant: str, double_quant: bool, cuda: bool) -> dict[str, Any]:
    """``from_pretrained``'s arguments for a grid run: bf16 weights on GPU 0 (or the CPU), nf4 through
    BitsAndBytesConfig. Shared by the SFT, preference and generate grids."""
    import torch
    from transformers import BitsAndBytesConfig

    kwargs: dict[str, Any] = {"dtype": torch.bfloat16, "device_map": {"": 0} if cuda else None}
    if quant == "nf4":
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16,
            bnb_4bit_use_double_quant=double_quant)
    return kwargs


def run_config(c: dict[str, Any], folder: Path, device: str, workdir: Path) -> dict[str, Any]:
    import torch
    from transformers import (
        AutoModelForCausalLM,
        Trainer,
        TrainerCallback,
        TrainingArguments,
    )

    cuda = device == "cuda"
    if cuda:
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    out: dict[str, Any] = dict(c)
    kwargs = load_kwargs(c["quant"], c["double_quant"], cuda)
    t0 = time.time()
    model = AutoModelForCausalLM.from_pretrained(str(folder), **kwargs)
    out["load_s"] = round(time.time() - t0, 1)
    mem = (lambda f: round(f() / GIB, 4)) if cuda else (lambda f: None)
    out["alloc_loaded_gib"] = mem(torch.cuda.memory_allocated)
    out["peak_load_gib"] = mem(torch.cuda.max_memory_allocated)
    gc_on = c["grad_ckpt"] != "off"
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    if c["kbit_prep"]:
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=gc_on,
                                                gradient_checkpointing_kwargs={"use_reentrant": c["grad_ckpt"] == "reentrant"})
    if c["lora_r"] > 0:
        from peft import LoraConfig, get_peft_model

        targets = c["targets"] if c["targets"] == ALL else c["targets"].split(",")
        model = get_peft_model(model, LoraConfig(r=c["lora_r"], lora_alpha=2 * c["lora_r"], lora_dropout=c["lora_dropout"],
                                                 target_modules=targets, task_type="CAUSAL_LM"))
    out["trainable_params"] = sum(p.numel() for p in model.parameters() if p.requires_grad)
    out["alloc_setup_gib"] = mem(torch.cuda.memory_allocated)
    out["peak_setup_gib"] = mem(torch.cuda.max_memory_allocated)

    steps: list[dict[str, Any]] = []

    class StepPeaks(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if cuda:
                steps.append({"peak_alloc_gib": mem(torch.cuda.max_memory_allocated),
                              "peak_reserved_gib": mem(torch.cuda.max_memory_reserved),
                              "alloc_end_gib": mem(torch.cuda.memory_allocated)})
                torch.cuda.reset_peak_memory_stats()

    args = TrainingArguments(
        output_dir=str(workdir), per_device_train_batch_size=c["batch"], gradient_accumulation_steps=1, max_steps=3,
        optim=c["optim"], learning_rate=1e-4, bf16=True, gradient_checkpointing=gc_on,
        gradient_checkpointing_kwargs={"use_reentrant": c["grad_ckpt"] == "reentrant"} if gc_on else None,
        save_strategy="no", report_to=[], logging_steps=1, remove_unused_columns=False, dataloader_num_workers=0,
        use_cpu=not cuda, disable_tqdm=True, seed=0)
    vocab = model_config(c["model"])["vocab_size"] if cuda else TINY["vocab_size"]
    trainer = Trainer(model=model, args=args, train_dataset=TokenRows(3 * c["batch"], c["seq"], vocab), callbacks=[StepPeaks()])
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    trainer.train()
    out["train_s"] = round(time.time() - t0, 1)
    out["steps"] = steps
    if cuda:
        out["peak_alloc_gib"] = max(s["peak_alloc_gib"] for s in steps)
        out["peak_reserved_gib"] = max(s["peak_reserved_gib"] for s in steps)
        free, total = torch.cuda.mem_get_info()
        out["device_used_end_gib"] = round((total - free) / GIB, 4)
        out["reserved_end_gib"] = mem(torch.cuda.memory_reserved)
    del trainer, model
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
    return out


def run_group(name: str, out_dir: Path, tiny: bool, only: list[int] | None = None, keep: bool = False) -> None:
    """Write the group's checkpoint, run its configurations, append one JSON line per configuration."""
    import torch

    device = "cuda" if torch.cuda.is_available() and not tiny else "cpu"
    ids = only or GROUPS[name]
    configs = [c for c in GRID if c["id"] in ids]
    if tiny:
        configs = [c for c in configs if c["quant"] == "none"]
    model = configs[0]["model"] if configs else GRID[ids[0] - 1]["model"]
    root = Path(os.environ.get("KB_PLAN_CKPT", "/tmp/kb-plan-ckpt"))
    folder = root / (model + ("-tiny" if tiny else ""))
    if not (folder / "config.json").exists():
        secs = write_checkpoint(model, folder, tiny, "cuda" if torch.cuda.is_available() else "cpu")
        print(f"[{name}] wrote {folder} in {secs:.1f} s", flush=True)
    for c in configs:
        t0 = time.time()
        try:
            result = run_config(c, folder, device, root / "trainer-out")
        except Exception as exc:  # noqa: BLE001  (an OOM or a library error is a result too: record it)
            result = {**c, "error": f"{type(exc).__name__}: {str(exc)[:400]}"}
            gc.collect()
            if device == "cuda":
                torch.cuda.empty_cache()
        result["wall_s"] = round(time.time() - t0, 1)
        with open(out_dir / "grid.jsonl", "a") as f:
            f.write(json.dumps(result) + "\n")
        print(f"[{name}] config {c['id']}: peak alloc {result.get('peak_alloc_gib')} reserved "
              f"{result.get('peak_reserved_gib')} GiB {result.get('error', '')} ({result['wall_s']} s)", flush=True)
    if not tiny and not keep:
        shutil.rmtree(folder, ignore_errors=True)


def environment() -> dict[str, Any]:
    import importlib.metadata as md

    import torch

    env: dict[str, Any] = {"python": sys.version.split()[0], "torch_cuda": torch.version.cuda}
    for pkg in ("torch", "transformers", "peft", "accelerate", "bitsandbytes", "safetensors"):
        try:
            env[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            env[pkg] = None
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        env.update(gpu=p.name, gpu_total_gib=round(p.total_memory / GIB, 2), capability=f"{p.major}.{p.minor}")
    return env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    ap.add_argument("--groups", default=",".join(GROUPS))
    ap.add_argument("--group", help=argparse.SUPPRESS)  # the worker mode: one group in this process
    ap.add_argument("--only", help="ids to run (comma-separated), each in a fresh process of its group")
    ap.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--budget-s", type=float, default=520.0, help="start no group after this many seconds")
    ap.add_argument("--cpu-smoke", action="store_true", help="tiny shapes on the CPU: checks the code path only")
    ap.add_argument("--list", action="store_true")
    ns = ap.parse_args()
    if ns.list:
        for c in GRID:
            print(json.dumps(c))
        return 0
    ns.out.mkdir(parents=True, exist_ok=True)
    if ns.group:
        only = [int(i) for i in ns.only.split(",")] if ns.only else None
        run_group(ns.group, ns.out, ns.cpu_smoke, only, ns.keep)
        return 0
    meta = {"held_out_rule": HELD_OUT_RULE, "configs": len(GRID), "measure": "3 Trainer steps; peak = torch.cuda.max_memory_allocated/reserved reset before trainer.train()",
            "environment": environment(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (ns.out / f"env-{int(time.time())}.json").write_text(json.dumps(meta, indent=1))
    print(json.dumps(meta), flush=True)
    start = time.time()
    smoke = ["--cpu-smoke"] if ns.cpu_smoke else []
    if ns.only:  # one process per configuration: nothing a previous configuration left on the GPU counts
        wanted = [int(i) for i in ns.only.split(",")]
        jobs = [(g, [i], i != [j for j in wanted if j in ids][-1]) for g, ids in GROUPS.items() for i in ids if i in wanted]
    else:
        jobs = [(g, GROUPS[g], False) for g in ns.groups.split(",")]
    for name, ids, keep in jobs:
        if time.time() - start > ns.budget_s:
            print(f"budget spent: group {name} {ids} not started", flush=True)
            continue
        cmd = [sys.executable, __file__, "--group", name, "--only", ",".join(map(str, ids)), "--out", str(ns.out)]
        rc = subprocess.call(cmd + smoke + (["--keep"] if keep else []))
        print(f"group {name} {ids}: exit {rc} at {time.time() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
