"""Measure the per-rank GPU memory of two-GPU fine-tuning steps (DDP, FSDP, DeepSpeed ZeRO-2/3), for
`kb plan --strategy` (kb/plan/strategy.py).

Each configuration of GRID runs as users run it: ``torchrun --nproc_per_node 2`` (one process per GPU), a
checkpoint with random bf16 weights and the model's real shape (written once per model by
benchmarks/plan_grid.py's writer), ``from_pretrained``, LoRA or full fine-tuning, then 3 steps of
``transformers.Trainer`` with the strategy set through TrainingArguments:

- ``ddp``: nothing to set (torchrun + Trainer wrap the model in DistributedDataParallel);
- ``fsdp`` / ``fsdp-grad-op``: ``fsdp="full_shard auto_wrap"`` / ``"shard_grad_op auto_wrap"`` with
  ``fsdp_config={"version": 2, "transformer_layer_cls_to_wrap": [the decoder layer class]}``;
- ``zero2`` / ``zero3``: ``deepspeed=`` a ZeRO config with the Trainer's ``auto`` values, torch's AdamW
  (``zero_allow_untested_optimizer``), no DeepSpeed fused ops.

Recorded per rank: allocated when training begins (after the Trainer wrapped the model), torch's peak
allocated / reserved over the 3 steps (reset at train begin, after the wrapping, so that the one-off
upcast and sharding of the model is not counted as a step) and per step, and the wrapping's own peak.

Usage (on a machine with 2 GPUs, from the repository root):
    python benchmarks/plan_grid_multi.py --out DIR [--only 1,2] [--budget-s 540] [--deepspeed-wheels .whl-ds]
    python benchmarks/plan_grid_multi.py --list
``--deepspeed-wheels DIR`` installs DeepSpeed from that folder (``pip install --no-index --find-links DIR``)
when it is not importable, before the ZeRO configurations (the GPU machine has no internet).
A CPU smoke test of the code path: ``--cpu-smoke`` (tiny shapes, gloo, 2 CPU processes; the DeepSpeed
configurations are skipped with a printed reason, FSDP too where gloo cannot run it).
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

from plan_grid import GIB, TINY, TokenRows, environment, model_config, write_checkpoint  # noqa: E402

STRATEGIES = ("ddp", "fsdp", "fsdp-grad-op", "zero2", "zero3")


def cfg(id: int, model: str, strategy: str, *, r: int = 16, batch: int = 1, seq: int = 1024, gc: str = "off",
        optim: str = "adamw_torch") -> dict[str, Any]:
    return {"id": id, "model": model, "strategy": strategy, "gpus": 2, "lora_r": r, "quant": "none",
            "targets": "all-linear", "lora_dropout": 0.05, "batch": batch, "seq": seq, "grad_ckpt": gc, "optim": optim}


NR = "nonreentrant"
GRID: list[dict[str, Any]] = [
    cfg(1, "qwen2.5-0.5b", "ddp", r=0, batch=4, seq=512),
    cfg(2, "qwen2.5-0.5b", "fsdp", r=0, batch=4, seq=512),
    cfg(3, "qwen2.5-0.5b", "zero2", r=0, batch=4, seq=512),
    cfg(4, "qwen2.5-1.5b", "ddp", batch=2, seq=1024),
    cfg(5, "qwen2.5-1.5b", "fsdp-grad-op", r=0, batch=2, seq=1024),
    cfg(6, "qwen2.5-1.5b", "zero3", r=0, batch=2, seq=1024),
    cfg(7, "qwen2.5-3b", "ddp", r=0, batch=2, seq=1024, gc=NR),
    cfg(8, "qwen2.5-3b", "fsdp", r=0, batch=1, seq=1024),
    cfg(9, "qwen2.5-3b", "zero3", r=0, batch=1, seq=1024),
    cfg(10, "llama-3.1-8b", "fsdp", batch=1, seq=2048, gc=NR),
    cfg(11, "llama-3.1-8b", "zero3", batch=1, seq=2048, gc=NR),
    cfg(12, "llama-3.1-8b", "zero2", batch=2, seq=1024, gc=NR),
]


def deepspeed_config(stage: int) -> dict[str, Any]:
    """A ZeRO config as the transformers docs write it: ``auto`` for what the Trainer fills in (bucket sizes
    from hidden_size: reduce_bucket_size h^2, stage3_prefetch_bucket_size 0.9 h^2, persistence threshold 10 h)."""
    zero: dict[str, Any] = {"stage": stage, "overlap_comm": False, "contiguous_gradients": True,
                            "reduce_bucket_size": "auto"}
    if stage == 3:
        zero.update(stage3_prefetch_bucket_size="auto", stage3_param_persistence_threshold="auto",
                    stage3_gather_16bit_weights_on_model_save=False)
    else:
        zero.update(allgather_partitions=True, allgather_bucket_size=5e8, reduce_scatter=True)
    return {"bf16": {"enabled": "auto"}, "zero_optimization": zero, "zero_allow_untested_optimizer": True,
            "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "train_batch_size": "auto",
            "train_micro_batch_size_per_gpu": "auto", "wall_clock_breakdown": False}


def strategy_args(c: dict[str, Any], layer_cls: str, cpu: bool) -> dict[str, Any]:
    s = c["strategy"]
    if s == "ddp":
        return {"ddp_find_unused_parameters": False}
    if s in ("fsdp", "fsdp-grad-op"):
        return {"fsdp": ("full_shard" if s == "fsdp" else "shard_grad_op") + " auto_wrap",
                "fsdp_config": {"version": 2, "transformer_layer_cls_to_wrap": [layer_cls]}}
    return {"deepspeed": deepspeed_config(2 if s == "zero2" else 3)}


def worker(c: dict[str, Any], folder: Path, out_dir: Path, tiny: bool) -> None:
    """One rank of one configuration (under torchrun): rank 0 writes the JSON line with every rank's figures."""
    import torch
    import torch.distributed as dist
    from transformers import AutoConfig, AutoModelForCausalLM, Trainer, TrainerCallback, TrainingArguments

    rank, local, world = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
    cuda = torch.cuda.is_available() and not tiny
    if cuda:
        torch.cuda.set_device(local)
    layer_cls = ""
    if c["strategy"].startswith("fsdp"):  # the decoder layer class, read off a model built on the meta device
        with torch.device("meta"):
            meta = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(str(folder)))
            layer_cls = type(meta.model.layers[0]).__name__
            del meta
    gc_on = c["grad_ckpt"] != "off"
    args = TrainingArguments(
        output_dir=str(out_dir / "trainer-out"), per_device_train_batch_size=c["batch"], gradient_accumulation_steps=1,
        max_steps=3, optim=c["optim"], learning_rate=1e-4, bf16=True, gradient_checkpointing=gc_on,
        gradient_checkpointing_kwargs={"use_reentrant": c["grad_ckpt"] == "reentrant"} if gc_on else None,
        save_strategy="no", report_to=[], logging_steps=1, remove_unused_columns=False, dataloader_num_workers=0,
        use_cpu=not cuda, disable_tqdm=True, seed=0, **strategy_args(c, layer_cls, not cuda))
    mem = (lambda f: round(f() / GIB, 4)) if cuda else (lambda f: None)
    out: dict[str, Any] = {"rank": rank}
    kwargs: dict[str, Any] = {"dtype": torch.bfloat16}
    if cuda and c["strategy"] in ("ddp", "zero2"):
        kwargs["device_map"] = {"": local}  # fsdp: loaded on the CPU, fully_shard moves each shard; zero3: zero.Init
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    model = AutoModelForCausalLM.from_pretrained(str(folder), **kwargs)
    out["load_s"] = round(time.time() - t0, 1)
    if c["lora_r"] > 0:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=c["lora_r"], lora_alpha=2 * c["lora_r"], lora_dropout=c["lora_dropout"],
                                                 target_modules=c["targets"], task_type="CAUSAL_LM"))
    out["trainable_params"] = sum(p.numel() for p in model.parameters() if p.requires_grad)
    out["alloc_setup_gib"] = mem(torch.cuda.memory_allocated)
    steps: list[dict[str, Any]] = []

    class Peaks(TrainerCallback):
        def on_train_begin(self, args, state, control, **kw):  # after the Trainer wrapped the model
            if cuda:
                out["alloc_train_begin_gib"] = mem(torch.cuda.memory_allocated)
                out["peak_prepare_gib"] = mem(torch.cuda.max_memory_allocated)
                torch.cuda.reset_peak_memory_stats()

        def on_step_end(self, args, state, control, **kw):
            if cuda:
                steps.append({"peak_alloc_gib": mem(torch.cuda.max_memory_allocated),
                              "peak_reserved_gib": mem(torch.cuda.max_memory_reserved),
                              "alloc_end_gib": mem(torch.cuda.memory_allocated)})
                torch.cuda.reset_peak_memory_stats()
            else:
                steps.append({})

    vocab = model_config(c["model"])["vocab_size"] if not tiny else TINY["vocab_size"]
    data = TokenRows(3 * c["batch"] * world, c["seq"], vocab)
    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[Peaks()])
    t0 = time.time()
    trainer.train()
    out["train_s"] = round(time.time() - t0, 1)
    out["steps"] = steps
    out["wrapped_as"] = type(trainer.model_wrapped).__name__
    out["fsdp"], out["deepspeed"] = bool(trainer.is_fsdp_enabled), bool(trainer.is_deepspeed_enabled)
    if cuda:
        out["peak_alloc_gib"] = max(s["peak_alloc_gib"] for s in steps)
        out["peak_reserved_gib"] = max(s["peak_reserved_gib"] for s in steps)
        free, total = torch.cuda.mem_get_info()
        out["device_used_end_gib"] = round((total - free) / GIB, 4)
    ranks: list[Any] = [None] * world
    dist.all_gather_object(ranks, out)
    if rank == 0:
        row = {**c, "world_size": world, "ranks": ranks, "device": "cuda" if cuda else "cpu"}
        applied = {"ddp": not out["fsdp"] and not out["deepspeed"], "fsdp": out["fsdp"], "fsdp-grad-op": out["fsdp"],
                   "zero2": out["deepspeed"], "zero3": out["deepspeed"]}[c["strategy"]]
        row["strategy_applied"] = applied
        if not applied:  # accelerate runs FSDP on accelerators only: on the CPU the Trainer falls back to DDP
            print(f"config {c['id']}: {c['strategy']} not applied on {row['device']} (wrapped as {out['wrapped_as']})",
                  flush=True)
        if cuda:
            row["peak_alloc_gib"] = max(r["peak_alloc_gib"] for r in ranks)
            row["peak_reserved_gib"] = max(r["peak_reserved_gib"] for r in ranks)
        with open(out_dir / "grid-multi.jsonl", "a") as f:
            f.write(json.dumps(row) + "\n")
    dist.barrier()
    del trainer, model
    gc.collect()


def ensure_deepspeed(wheels: Path | None) -> str | None:
    """DeepSpeed importable (installed from ``wheels`` if need be); the reason it is not, else None."""
    try:
        import deepspeed  # noqa: F401
        return None
    except ImportError:
        pass
    if wheels is None:
        return "deepspeed is not installed and no --deepspeed-wheels folder was given"
    env = {**os.environ, "DS_BUILD_OPS": "0"}
    rc = subprocess.call([sys.executable, "-m", "pip", "install", "--no-index", "--find-links", str(wheels), "deepspeed"], env=env)
    if rc != 0:
        return f"pip install from {wheels} failed (exit {rc})"
    check = subprocess.run([sys.executable, "-c", "import deepspeed; print(deepspeed.__version__)"], capture_output=True, text=True)
    return None if check.returncode == 0 else f"deepspeed does not import: {check.stderr.strip()[-300:]}"


def launch(c: dict[str, Any], folder: Path, out_dir: Path, tiny: bool, nproc: int, port: int) -> int:
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(nproc), "--master_addr", "127.0.0.1",
           "--master_port", str(port), __file__, "--worker", str(c["id"]), "--ckpt", str(folder), "--out", str(out_dir)]
    env = {**os.environ, "DS_BUILD_OPS": "0", "TOKENIZERS_PARALLELISM": "false"}
    if tiny:
        env.update(CUDA_VISIBLE_DEVICES="", ACCELERATE_USE_CPU="1")
    return subprocess.call(cmd + (["--cpu-smoke"] if tiny else []), env=env)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    ap.add_argument("--only", help="ids to run (comma-separated)")
    ap.add_argument("--budget-s", type=float, default=540.0, help="start no configuration after this many seconds")
    ap.add_argument("--deepspeed-wheels", type=Path, help="folder of wheels to install DeepSpeed from (no index)")
    ap.add_argument("--nproc", type=int, default=2)
    ap.add_argument("--cpu-smoke", action="store_true", help="tiny shapes on 2 CPU processes (gloo): the code path only")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--ckpt", type=Path, help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.list:
        for c in GRID:
            print(json.dumps(c))
        return 0
    ns.out.mkdir(parents=True, exist_ok=True)
    if ns.worker is not None:
        worker(next(c for c in GRID if c["id"] == ns.worker), ns.ckpt, ns.out, ns.cpu_smoke)
        return 0
    import torch

    tiny = ns.cpu_smoke
    wanted = [int(i) for i in ns.only.split(",")] if ns.only else [c["id"] for c in GRID]
    configs = [c for c in GRID if c["id"] in wanted]
    skip: dict[str, str] = {}
    if any(c["strategy"].startswith("zero") for c in configs):
        if tiny:
            skip["zero"] = "DeepSpeed ZeRO needs CUDA (its ops and NCCL); not run in the CPU smoke test"
        else:
            why = ensure_deepspeed(ns.deepspeed_wheels)
            if why:
                skip["zero"] = why
    env = environment()
    try:
        import importlib.metadata as md

        env["deepspeed"] = md.version("deepspeed")
    except Exception:  # noqa: BLE001
        env["deepspeed"] = None
    env["nccl"] = ".".join(map(str, torch.cuda.nccl.version())) if torch.cuda.is_available() else None
    env["gpu_count"] = torch.cuda.device_count()
    meta = {"configs": len(configs), "nproc_per_node": ns.nproc, "environment": env,
            "measure": "3 Trainer steps per configuration under torchrun; per rank torch.cuda.max_memory_allocated/reserved, "
                       "reset at on_train_begin (after the Trainer wrapped the model)",
            "deepspeed_config": {"zero2": deepspeed_config(2), "zero3": deepspeed_config(3)},
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (ns.out / f"env-multi-{int(time.time())}.json").write_text(json.dumps(meta, indent=1))
    print(json.dumps(meta), flush=True)
    root = Path(os.environ.get("KB_PLAN_CKPT", "/tmp/kb-plan-ckpt"))
    start = time.time()
    for i, c in enumerate(configs):
        if time.time() - start > ns.budget_s:
            print(f"budget spent: config {c['id']} not started", flush=True)
            continue
        if c["strategy"].startswith("zero") and "zero" in skip:
            print(f"config {c['id']} ({c['strategy']}) skipped: {skip['zero']}", flush=True)
            continue
        folder = root / (c["model"] + ("-tiny" if tiny else ""))
        if not (folder / "config.json").exists():
            secs = write_checkpoint(c["model"], folder, tiny, "cuda" if torch.cuda.is_available() and not tiny else "cpu")
            print(f"wrote {folder} in {secs:.1f} s", flush=True)
        t0 = time.time()
        rc = launch(c, folder, ns.out, tiny, ns.nproc, 29500 + c["id"])
        print(f"config {c['id']} {c['model']} {c['strategy']}: exit {rc} ({time.time() - t0:.0f} s)", flush=True)
        if rc != 0:
            with open(ns.out / "grid-multi.jsonl", "a") as f:
                f.write(json.dumps({**c, "error": f"torchrun exit {rc} (the ranks' output is in the log)"}) + "\n")
        later = [d for d in configs[i + 1:] if d["model"] == c["model"]]
        if not later and not tiny:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
