"""Measure the GPU memory of preference-trainer steps (trl: DPO, ORPO, KTO, GRPO, reward), for `kb plan --trainer`.

The companion of benchmarks/plan_grid.py (SFT), whose checkpoint writer it reuses: a checkpoint with random
bf16 weights and the model's real shape (tables/plan-models.toml) is written once per model, loaded with
``from_pretrained`` (``BitsAndBytesConfig`` for 4-bit), and trained for 3 steps by the trl trainer as a
user runs it: the trainer's own config class, a LoRA ``peft_config`` handed to the trainer (or none for full
fine-tuning), the trainer's own data collation. The tokenizer is a word-level one built offline (one token
per word), so prompt and completion lengths are exact. Recorded per configuration: allocated after loading
and after the trainer is built, torch's peak allocated / reserved per step and over the 3 steps (reset
right before ``trainer.train()``), the versions.

What each configuration's fields mean:
- ``ref``: ``peft`` (a LoRA run with no ref_model: trl disables the adapter for the reference pass),
  ``model`` (a separate reference model: passed for LoRA; made by trl itself for full fine-tuning),
  ``precomputed`` (``precompute_ref_log_probs=True``), ``none`` (ORPO, reward, GRPO with beta 0).
- ``batch``: ``per_device_train_batch_size`` (for GRPO it counts completions, not prompts);
- ``prompt_len`` / ``completion_len``: tokens (DPO/ORPO: chosen and rejected have the same length; reward:
  prompt + chosen/rejected; GRPO: ``max_completion_length``, generated in full by random weights).

Held out from fitting (decided before any measurement): every configuration whose id is a multiple of 3.

Usage (on the GPU machine; trl and datasets installed from wheels):
    python benchmarks/plan_grid_pref.py --out DIR [--groups g1,g2] [--budget-s 520]
    python benchmarks/plan_grid_pref.py --list
    python benchmarks/plan_grid_pref.py --cpu-smoke --out /tmp/x   # tiny shapes on the CPU: the code path only
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
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
NR = "nonreentrant"


def cfg(id: int, trainer: str, model: str, *, r: int = 16, quant: str = "none", ref: str = "peft", batch: int = 2,
        prompt: int = 256, completion: int = 256, gens: int = 0, beta: float | None = None, gc: str = "off",
        optim: str = "adamw_torch") -> dict[str, Any]:
    return {"id": id, "trainer": trainer, "model": model, "lora_r": r, "quant": quant, "ref": ref, "batch": batch,
            "prompt_len": prompt, "completion_len": completion, "num_generations": gens, "beta": beta,
            "grad_ckpt": gc, "optim": optim, "held_out": id % 3 == 0}


GRID: list[dict[str, Any]] = [
    # DPO
    cfg(1, "dpo", "qwen2.5-0.5b", r=0, ref="model", batch=2, prompt=256, completion=256),
    cfg(2, "dpo", "qwen2.5-1.5b", ref="peft", batch=2, prompt=256, completion=512, gc=NR),
    cfg(3, "dpo", "qwen2.5-1.5b", ref="model", batch=2, prompt=256, completion=512, gc=NR),
    cfg(4, "dpo", "llama-3.2-3b", quant="nf4", ref="peft", batch=2, prompt=512, completion=512, gc=NR, optim="paged_adamw_8bit"),
    cfg(5, "dpo", "llama-3.1-8b", quant="nf4", ref="peft", batch=1, prompt=512, completion=1024, gc=NR),
    cfg(6, "dpo", "qwen2.5-0.5b", ref="precomputed", batch=4, prompt=256, completion=256),
    # ORPO (trl.experimental.orpo)
    cfg(7, "orpo", "qwen2.5-0.5b", r=0, ref="none", batch=2, prompt=256, completion=256),
    cfg(8, "orpo", "llama-3.2-3b", quant="nf4", ref="none", batch=2, prompt=512, completion=512, gc=NR),
    cfg(9, "orpo", "qwen2.5-1.5b", ref="none", batch=2, prompt=256, completion=512, gc=NR),
    cfg(10, "orpo", "llama-3.1-8b", quant="nf4", ref="none", batch=1, prompt=256, completion=512, gc=NR),
    # KTO
    cfg(11, "kto", "qwen2.5-1.5b", ref="peft", batch=4, prompt=256, completion=512, gc=NR),
    cfg(12, "kto", "qwen2.5-0.5b", ref="peft", batch=4, prompt=256, completion=256),
    cfg(13, "kto", "llama-3.2-3b", quant="nf4", ref="peft", batch=4, prompt=256, completion=256, gc=NR),
    cfg(14, "kto", "qwen2.5-0.5b", r=0, ref="model", batch=4, prompt=256, completion=256),
    # GRPO (batch counts completions)
    cfg(15, "grpo", "qwen2.5-0.5b", ref="none", batch=8, prompt=128, completion=256, gens=4),
    cfg(16, "grpo", "qwen2.5-1.5b", ref="none", batch=8, prompt=128, completion=256, gens=8, gc=NR),
    cfg(17, "grpo", "llama-3.2-3b", quant="nf4", ref="peft", batch=4, prompt=256, completion=256, gens=4, beta=0.04, gc=NR),
    cfg(18, "grpo", "llama-3.2-3b", quant="nf4", ref="none", batch=4, prompt=256, completion=256, gens=4, gc=NR),
    cfg(19, "grpo", "qwen2.5-0.5b", r=0, ref="none", batch=4, prompt=128, completion=256, gens=4),
    cfg(20, "grpo", "llama-3.1-8b", quant="nf4", ref="none", batch=4, prompt=128, completion=128, gens=4, gc=NR),
    # reward model (sequence classification, chosen + rejected)
    cfg(21, "reward", "qwen2.5-0.5b", r=0, ref="none", batch=4, prompt=256, completion=256),
    cfg(22, "reward", "qwen2.5-1.5b", ref="none", batch=4, prompt=512, completion=512, gc=NR),
    cfg(23, "reward", "llama-3.2-3b", quant="nf4", ref="none", batch=2, prompt=512, completion=512, gc=NR),
    # a 256k vocabulary
    cfg(24, "dpo", "gemma-2-2b", ref="peft", batch=2, prompt=256, completion=256, gc=NR),
    cfg(25, "orpo", "gemma-2-2b", ref="none", batch=1, prompt=256, completion=256, gc=NR),
    cfg(26, "dpo", "qwen2.5-1.5b", ref="peft", batch=2, prompt=256, completion=512),
]

GROUPS: dict[str, list[int]] = {
    "qwen05": [1, 6, 7, 12, 14, 15, 19, 21], "qwen15": [2, 3, 9, 11, 16, 22, 26], "llama3": [4, 8, 13, 17, 18, 23],
    "gemma2": [24, 25], "llama8": [5, 10, 20],
}


def tokenizer(vocab_size: int) -> Any:
    """A word-level tokenizer built offline: token ``t<i>`` is id i, so n words are n tokens."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    n = min(vocab_size, 32000)
    vocab = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3, **{f"t{i}": i for i in range(4, n)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                   unk_token="<unk>")


def words(rng: random.Random, n: int, vocab: int) -> str:
    return " ".join(f"t{rng.randrange(4, min(vocab, 32000))}" for _ in range(n))


def dataset(c: dict[str, Any], rows: int, vocab: int) -> Any:
    from datasets import Dataset

    rng = random.Random(0)
    p, n = c["prompt_len"], c["completion_len"]
    if c["trainer"] in ("dpo", "orpo", "reward"):
        data = {"prompt": [words(rng, p, vocab) for _ in range(rows)],
                "chosen": [" " + words(rng, n, vocab) for _ in range(rows)],
                "rejected": [" " + words(rng, n, vocab) for _ in range(rows)]}
    elif c["trainer"] == "kto":
        data = {"prompt": [words(rng, p, vocab) for _ in range(rows)],
                "completion": [" " + words(rng, n, vocab) for _ in range(rows)],
                "label": [i % 2 == 0 for i in range(rows)]}
    else:  # grpo
        data = {"prompt": [words(rng, p, vocab) for _ in range(rows)]}
    return Dataset.from_dict(data)


def length_reward(completions: list[str], **_: Any) -> list[float]:
    return [float(len(x)) / 1000.0 for x in completions]


def trainer_args(c: dict[str, Any], workdir: Path, cuda: bool) -> Any:
    gc_on = c["grad_ckpt"] != "off"
    common: dict[str, Any] = dict(
        output_dir=str(workdir), per_device_train_batch_size=c["batch"], gradient_accumulation_steps=1, max_steps=3,
        optim=c["optim"], learning_rate=1e-5, bf16=True, gradient_checkpointing=gc_on,
        gradient_checkpointing_kwargs={"use_reentrant": False} if gc_on else None, save_strategy="no", report_to=[],
        logging_steps=1, dataloader_num_workers=0, use_cpu=not cuda, disable_tqdm=True, seed=0)
    total = c["prompt_len"] + c["completion_len"] + 8
    t = c["trainer"]
    if t == "dpo":
        from trl import DPOConfig

        return DPOConfig(**common, max_length=total, precompute_ref_log_probs=c["ref"] == "precomputed")
    if t == "orpo":
        from trl.experimental.orpo import ORPOConfig

        return ORPOConfig(**common, max_length=total, max_completion_length=c["completion_len"] + 8)
    if t == "kto":
        from trl import KTOConfig

        return KTOConfig(**common, max_length=total, precompute_ref_log_probs=c["ref"] == "precomputed")
    if t == "grpo":
        from trl import GRPOConfig

        extra = {"beta": c["beta"]} if c["beta"] is not None else {}
        return GRPOConfig(**common, num_generations=c["num_generations"], max_completion_length=c["completion_len"],
                          **extra)
    from trl import RewardConfig

    return RewardConfig(**common, max_length=total)


def run_config(c: dict[str, Any], folder: Path, device: str, workdir: Path, vocab: int) -> dict[str, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification, TrainerCallback

    cuda = device == "cuda"
    if cuda:
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    out: dict[str, Any] = dict(c)
    kwargs = plan_grid.load_kwargs(c["quant"], True, cuda)
    tok = tokenizer(vocab)
    loader = AutoModelForSequenceClassification if c["trainer"] == "reward" else AutoModelForCausalLM
    extra = {"num_labels": 1, "pad_token_id": 0} if c["trainer"] == "reward" else {}
    t0 = time.time()
    model = loader.from_pretrained(str(folder), **kwargs, **extra)
    ref_model = None
    if c["ref"] == "model" and c["lora_r"] > 0:  # full fine-tuning: trl makes the reference copy itself
        ref_model = AutoModelForCausalLM.from_pretrained(str(folder), **kwargs)
    out["load_s"] = round(time.time() - t0, 1)
    mem = (lambda f: round(f() / GIB, 4)) if cuda else (lambda f: None)
    out["alloc_loaded_gib"] = mem(torch.cuda.memory_allocated)
    peft_config = None
    if c["lora_r"] > 0:
        from peft import LoraConfig

        peft_config = LoraConfig(r=c["lora_r"], lora_alpha=2 * c["lora_r"], lora_dropout=0.05, target_modules="all-linear",
                                 task_type="SEQ_CLS" if c["trainer"] == "reward" else "CAUSAL_LM")
    args = trainer_args(c, workdir, cuda)
    rows = 3 * c["batch"] if c["trainer"] != "grpo" else 3 * max(1, c["batch"] // max(1, c["num_generations"])) * 2
    data = dataset(c, rows, vocab)
    steps: list[dict[str, Any]] = []

    class StepPeaks(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):  # noqa: ANN001
            if cuda:
                steps.append({"peak_alloc_gib": mem(torch.cuda.max_memory_allocated),
                              "peak_reserved_gib": mem(torch.cuda.max_memory_reserved),
                              "alloc_end_gib": mem(torch.cuda.memory_allocated)})
                torch.cuda.reset_peak_memory_stats()

    t = c["trainer"]
    common = dict(model=model, args=args, train_dataset=data, processing_class=tok, peft_config=peft_config,
                  callbacks=[StepPeaks()])
    if t == "dpo":
        from trl import DPOTrainer

        trainer = DPOTrainer(ref_model=ref_model, **common)
    elif t == "orpo":
        from trl.experimental.orpo import ORPOTrainer

        trainer = ORPOTrainer(**common)
    elif t == "kto":
        from trl import KTOTrainer

        trainer = KTOTrainer(ref_model=ref_model, **common)
    elif t == "grpo":
        from trl import GRPOTrainer

        trainer = GRPOTrainer(reward_funcs=[length_reward], **common)
    else:
        from trl import RewardTrainer

        trainer = RewardTrainer(**common)
    out["trainable_params"] = sum(p.numel() for p in trainer.model.parameters() if p.requires_grad)
    out["alloc_setup_gib"] = mem(torch.cuda.memory_allocated)
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    trainer.train()
    out["train_s"] = round(time.time() - t0, 1)
    out["steps"] = steps
    if cuda:
        out["peak_alloc_gib"] = max(s["peak_alloc_gib"] for s in steps)
        out["peak_reserved_gib"] = max(s["peak_reserved_gib"] for s in steps)
    del trainer, model, ref_model
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
    return out


def name_architecture(folder: Path) -> None:
    """trl builds a full fine-tuning run's reference model from the checkpoint's path, which needs the config's
    ``architectures`` (a config made by ``AutoConfig.for_model`` has none)."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    path = folder / "config.json"
    config = json.loads(path.read_text())
    if not config.get("architectures"):
        config["architectures"] = [MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[config["model_type"]]]
        path.write_text(json.dumps(config, indent=2))


def run_group(name: str, out_dir: Path, tiny: bool, only: list[int] | None = None, keep: bool = False) -> None:
    import torch

    device = "cuda" if torch.cuda.is_available() and not tiny else "cpu"
    ids = only or GROUPS[name]
    configs = [c for c in GRID if c["id"] in ids]
    if tiny:
        configs = [c for c in configs if c["quant"] == "none"]
    model = next(c["model"] for c in GRID if c["id"] in ids)
    root = Path(os.environ.get("KB_PLAN_CKPT", "/tmp/kb-plan-ckpt"))
    folder = root / (model + ("-tiny" if tiny else ""))
    if not (folder / "config.json").exists():
        secs = plan_grid.write_checkpoint(model, folder, tiny, "cuda" if torch.cuda.is_available() else "cpu")
        print(f"[{name}] wrote {folder} in {secs:.1f} s", flush=True)
    name_architecture(folder)
    vocab = plan_grid.model_config(model, tiny)["vocab_size"]
    for c in configs:
        t0 = time.time()
        try:
            result = run_config(c, folder, device, root / "trainer-out", vocab)
        except Exception as exc:  # noqa: BLE001  (an OOM or a library error is a result too: record it)
            import traceback

            traceback.print_exc()
            result = {**c, "error": f"{type(exc).__name__}: {str(exc)[:400]}"}
            gc.collect()
            if device == "cuda":
                torch.cuda.empty_cache()
        result["wall_s"] = round(time.time() - t0, 1)
        with open(out_dir / "pref-grid.jsonl", "a") as f:
            f.write(json.dumps(result) + "\n")
        print(f"[{name}] config {c['id']} {c['trainer']}: peak alloc {result.get('peak_alloc_gib')} reserved "
              f"{result.get('peak_reserved_gib')} GiB {result.get('error', '')} ({result['wall_s']} s)", flush=True)
    if not tiny and not keep:
        shutil.rmtree(folder, ignore_errors=True)


def environment() -> dict[str, Any]:
    import importlib.metadata as md

    env = plan_grid.environment()
    for pkg in ("trl", "datasets", "tokenizers"):
        try:
            env[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            env[pkg] = None
    return env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    ap.add_argument("--groups", default=",".join(GROUPS))
    ap.add_argument("--group", help=argparse.SUPPRESS)
    ap.add_argument("--only", help="ids to run (comma-separated)")
    ap.add_argument("--budget-s", type=float, default=520.0, help="start no group after this many seconds")
    ap.add_argument("--cpu-smoke", action="store_true", help="tiny shapes on the CPU: checks the code path only")
    ap.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)  # keep the group's checkpoint
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
    meta = {"held_out_rule": HELD_OUT_RULE, "configs": len(GRID),
            "measure": "3 trl steps; peak = torch.cuda.max_memory_allocated/reserved reset before trainer.train()",
            "environment": environment(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (ns.out / f"pref-env-{int(time.time())}.json").write_text(json.dumps(meta, indent=1))
    print(json.dumps(meta), flush=True)
    start = time.time()
    wanted = {int(i) for i in ns.only.split(",")} if ns.only else None
    # One process per configuration: memory one run leaves allocated (a 4-bit DPO run with a paged optimizer
    # left 0.73 GiB behind) must not count in the next. The group's checkpoint is kept until its last one.
    for name in ns.groups.split(","):
        ids = [i for i in GROUPS[name] if wanted is None or i in wanted]
        for i in ids:
            if time.time() - start > ns.budget_s:
                print(f"budget spent: config {i} of group {name} not started", flush=True)
                continue
            cmd = [sys.executable, __file__, "--group", name, "--only", str(i), "--out", str(ns.out)]
            cmd += (["--cpu-smoke"] if ns.cpu_smoke else []) + (["--keep"] if i != ids[-1] else [])
            rc = subprocess.call(cmd)
            print(f"group {name} config {i}: exit {rc} at {time.time() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
