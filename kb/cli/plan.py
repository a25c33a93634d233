"""`kb plan`: its options (added to kb's parser by kb/cli/commands.py), the command and its text."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kb.cli.output import EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, print_json
from kb.plan.settings_file import read_settings
from kb.plan.spec import (
    ATTN,
    DTYPES,
    OPTIMIZERS,
    QUANTS,
    RunSpec,
    SpecError,
    parse_device_map,
    spec_from_settings,
)

# option dest -> RunSpec field, for options given on the command line (None = not given)
OPTION_FIELDS = {
    "quant": "quant", "double_quant": "double_quant", "compute_dtype": "compute_dtype", "lora_r": "lora_r",
    "lora_alpha": "lora_alpha", "lora_dropout": "lora_dropout", "target_modules": "target_modules", "batch": "batch",
    "seq": "seq", "optim": "optim", "grad_accum": "grad_accum", "kbit_prep": "kbit_prep", "attn": "attn",
    "context_gib": "context_gib", "autocast": "autocast",
}


def add_plan_parser(sub: Any, func: Any) -> None:
    p = sub.add_parser(
        "plan", help="predict a training step's peak GPU memory (per GPU), before running it",
        description="Predict the per-GPU peak memory of a LoRA/QLoRA/full fine-tuning step (transformers Trainer), "
                    "from the model's config and the run's settings, without torch: parts, when the peak falls, "
                    "whether it fits, what to change. Computed as docs/plan.md describes; checked against a "
                    "measured grid (benchmarks/results/plan-error.md).",
        epilog="examples:\n  kb plan --model qwen2.5-14b --quant nf4 --batch 1 --seq 1024 --grad-ckpt --gpu-gib 14.74\n"
               "  kb plan --config config.json --lora-r 16 --batch 8 --seq 2048 --gpu-gib 24 --format json\n"
               "  kb plan --model qwen2.5-14b --quant nf4 --gpu-gib 14.74 --gpu-gib 14.74 \\\n"
               "      --device-map '{\"model.embed_tokens\": 0, \"model.norm\": 0, \"lm_head\": 0, \"model.layers\": 1}'\n"
               "  kb plan --from sft_config.yaml --model llama-3.1-8b --gpu-gib 15\n\n"
               "exit codes: 0 fits (or no --gpu-gib), 1 does not fit, 2 usage error",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = p.add_argument_group("model (one of)")
    which.add_argument("--config", metavar="PATH", help="the model's config.json (or its folder)")
    which.add_argument("--model", metavar="ID", help="a model id whose shape kb ships (kb plan --list-models)")
    which.add_argument("--list-models", action="store_true", help="list the model ids kb knows and exit")
    p.add_argument("--from", dest="from_file", metavar="FILE",
                   help="TrainingArguments/SFTConfig JSON or YAML (batch, accumulation, seq, optim, checkpointing, LoRA)")
    p.add_argument("--quant", choices=QUANTS)
    p.add_argument("--double-quant", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--compute-dtype", choices=DTYPES)
    p.add_argument("--lora-r", type=int, metavar="N", help="LoRA rank; 0 = full fine-tuning (default 16)")
    p.add_argument("--lora-alpha", type=int, metavar="N")
    p.add_argument("--lora-dropout", type=float, metavar="P", help="default 0.05")
    p.add_argument("--target-modules", metavar="LIST", help="all-linear (default) or q_proj,v_proj,...")
    p.add_argument("--batch", type=int, metavar="N", help="per_device_train_batch_size (default 1)")
    p.add_argument("--seq", type=int, metavar="N", help="tokens per sequence (default 1024)")
    p.add_argument("--grad-accum", type=int, metavar="N", help="gradient_accumulation_steps (default 1)")
    p.add_argument("--grad-ckpt", dest="grad_ckpt", action=argparse.BooleanOptionalAction, default=None,
                   help="gradient checkpointing (default off)")
    p.add_argument("--reentrant", action="store_true", help="checkpointing with use_reentrant=True")
    p.add_argument("--optim", choices=OPTIMIZERS)
    p.add_argument("--kbit-prep", action=argparse.BooleanOptionalAction, default=None,
                   help="prepare_model_for_kbit_training (default: on for int8/nf4/fp4)")
    p.add_argument("--attn", choices=ATTN)
    p.add_argument("--autocast", action=argparse.BooleanOptionalAction, default=None,
                   help="mixed-precision autocast in the step (default on: the Trainer with bf16/fp16; "
                        "--no-autocast for a hand-written loop without torch.autocast)")
    p.add_argument("--gpu-gib", type=float, action="append", metavar="X", help="a GPU's memory in GiB; repeat per GPU")
    p.add_argument("--device-map", metavar="auto|JSON", help="auto (default) or {module: gpu} as given to from_pretrained")
    p.add_argument("--context-gib", type=float, metavar="X", help="CUDA context outside torch's allocator (default 0.5)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=func)


def spec_from_args(ns: argparse.Namespace) -> tuple[RunSpec, str | None]:
    """The run (defaults < --from file < options) and a model named in the --from file, if any."""
    spec, model = RunSpec(), None
    if ns.from_file:
        data = read_settings(ns.from_file)
        spec = spec_from_settings(data)
        model = data.get("model_name_or_path") or data.get("base_model")
    changes = {f: getattr(ns, dest) for dest, f in OPTION_FIELDS.items() if getattr(ns, dest) is not None}
    if ns.grad_ckpt is not None:
        changes["grad_ckpt"] = ("reentrant" if ns.reentrant else "nonreentrant") if ns.grad_ckpt else "off"
    elif ns.reentrant:
        changes["grad_ckpt"] = "reentrant"
    if ns.gpu_gib:
        changes["gpu_gib"] = tuple(ns.gpu_gib)
    if ns.device_map:
        changes["device_map"] = parse_device_map(ns.device_map)
    if "lora_r" in changes and "lora_alpha" not in changes:
        changes["lora_alpha"] = 2 * changes["lora_r"]
    spec = spec.with_(**changes)
    spec.check()
    return spec, model


def run_plan(ns: argparse.Namespace) -> int:
    from kb.cli.plan_text import render_text
    from kb.plan.report import plan_document
    from kb.plan.shapes import ShapeError, known_models, load_shape

    if ns.list_models:
        for mid, cfg in known_models().items():
            print(f"{mid:<16} {cfg.get('hub_id', '')}")
        return EXIT_OK
    try:
        spec, from_model = spec_from_args(ns)
        model = ns.config or ns.model or from_model
        if not model:
            raise SpecError("name the model: --config PATH/config.json or --model ID (kb plan --list-models)")
        doc = plan_document(load_shape(str(model)), spec)
    except (SpecError, ShapeError) as exc:
        print(f"kb plan: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if ns.format == "json":
        print_json(doc)
    else:
        sys.stdout.write(render_text(doc))
    return EXIT_NO_MATCH if doc["fits"] is False else EXIT_OK
