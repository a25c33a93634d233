"""`kb plan`: its options (added to kb's parser by kb/cli/commands.py), the command and its text.

Numbers are taken as text and checked by kb/plan/checks.py (finite, positive, within physical bounds), so
that every bad input ends in one line ``kb plan: ...`` and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kb.cli.output import EXIT_NO_MATCH, EXIT_OK, EXIT_USAGE, one_line_usage_error, print_json
from kb.plan.checks import (
    MAX_BATCH,
    MAX_CONTEXT_GIB,
    MAX_GPU_GIB,
    MIN_GPU_GIB,
    MAX_GPUS,
    MAX_GRAD_ACCUM,
    MAX_LORA_ALPHA,
    MAX_LORA_R,
    MAX_SEQ,
    int_if_whole,
    real,
    whole,
)
from kb.plan.settings_file import read_settings
from kb.plan.spec import (
    ATTN,
    DTYPES,
    OPTIMIZERS,
    FSDP_SHARDING,
    OFFLOADS,
    QUANTS,
    STRATEGIES,
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
# numeric option dest -> (flag, whole number?, low, high, low bound excluded, high bound excluded)
NUMBERS: dict[str, tuple[str, bool, float, float, bool, bool]] = {
    "lora_r": ("--lora-r", True, 0, MAX_LORA_R, False, False),
    "lora_alpha": ("--lora-alpha", False, 0.0, MAX_LORA_ALPHA, True, False),
    "lora_dropout": ("--lora-dropout", False, 0.0, 1.0, False, True),
    "batch": ("--batch", True, 1, MAX_BATCH, False, False),
    "seq": ("--seq", True, 1, MAX_SEQ, False, False),
    "grad_accum": ("--grad-accum", True, 1, MAX_GRAD_ACCUM, False, False),
    "context_gib": ("--context-gib", False, 0.0, MAX_CONTEXT_GIB, False, False),
}


def add_plan_parser(sub: Any, func: Any) -> None:
    p = sub.add_parser(
        "plan", help="predict a training step's peak GPU memory (per GPU), before running it",
        description="Predict the per-GPU peak memory of a LoRA/QLoRA/full fine-tuning step (transformers Trainer), "
                    "from the model's config and the run's settings, without torch: parts, when the peak falls, "
                    "whether it fits, what to change. Defaults are what the libraries do (4-bit loading runs "
                    "prepare_model_for_kbit_training, which turns on gradient checkpointing; fp16 on a card without "
                    "bf16). Computed as docs/plan.md describes; checked against a measured grid "
                    "(benchmarks/results/plan-error.md).",
        epilog="examples:\n  kb plan --model Qwen/Qwen2.5-14B-Instruct --quant nf4 --gpu-gib 15\n"
               "  kb plan --model qwen2.5-7b --quant nf4 --batch 4 --seq 2048 --gpu-gib 15 15\n"
               "  kb plan --config config.json --lora-r 16 --batch 8 --seq 2048 --gpu-gib 24 --format json\n"
               "  kb plan --model qwen2.5-14b --quant nf4 --gpu-gib 14.74 14.74 \\\n"
               "      --device-map '{\"model.embed_tokens\": 0, \"model.norm\": 0, \"lm_head\": 0, \"model.layers\": 1}'\n"
               "  kb plan --from sft_config.yaml --model llama-3.1-8b --gpu-gib 15\n\n"
               "exit codes: 0 fits (or no --gpu-gib), 1 does not fit, 2 usage error or unusable input",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.error = one_line_usage_error("kb plan")  # type: ignore[method-assign]
    which = p.add_argument_group("model (one of)")
    which.add_argument("--config", metavar="PATH", help="the model's config.json (or its folder)")
    which.add_argument("--model", metavar="ID", help="a model id as on the Hub (Qwen/Qwen2.5-14B-Instruct, "
                       "qwen2.5-14b: -Instruct has its base's shapes; kb plan --list-models)")
    which.add_argument("--list-models", action="store_true", help="list the model ids kb knows and exit")
    p.add_argument("--from", dest="from_file", metavar="FILE",
                   help="TrainingArguments/SFTConfig JSON or YAML (batch, accumulation, seq, optim, checkpointing, LoRA)")
    p.add_argument("--quant", choices=QUANTS)
    p.add_argument("--double-quant", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--compute-dtype", choices=DTYPES, help="default bf16; fp16 on a card without bf16 (T4)")
    p.add_argument("--lora-r", metavar="N", help="LoRA rank; 0 = full fine-tuning (default 16)")
    p.add_argument("--lora-alpha", metavar="N", help="default 2 x r")
    p.add_argument("--lora-dropout", metavar="P", help="default 0.05")
    p.add_argument("--target-modules", metavar="LIST", help="all-linear (default) or q_proj,v_proj,...")
    p.add_argument("--batch", metavar="N", help="per_device_train_batch_size (default 1)")
    p.add_argument("--seq", metavar="N", help="tokens per sequence (default 1024)")
    p.add_argument("--grad-accum", metavar="N", help="gradient_accumulation_steps (default 1)")
    p.add_argument("--grad-ckpt", dest="grad_ckpt", action=argparse.BooleanOptionalAction, default=None,
                   help="gradient checkpointing (default: on with 4-bit/8-bit loading, as prepare_model_for_kbit_training "
                        "does; off otherwise)")
    p.add_argument("--reentrant", action="store_true", help="checkpointing with use_reentrant=True")
    p.add_argument("--optim", choices=OPTIMIZERS)
    p.add_argument("--kbit-prep", action=argparse.BooleanOptionalAction, default=None,
                   help="prepare_model_for_kbit_training (default: on for int8/nf4/fp4)")
    p.add_argument("--attn", choices=ATTN)
    p.add_argument("--autocast", action=argparse.BooleanOptionalAction, default=None,
                   help="mixed-precision autocast in the step (default on: the Trainer with bf16/fp16; "
                        "--no-autocast for a hand-written loop without torch.autocast)")
    p.add_argument("--gpu-gib", nargs="+", action="extend", metavar="X",
                   help="each GPU's memory in GiB: --gpu-gib 15 15 (or the flag repeated)")
    p.add_argument("--device-map", metavar="auto|JSON", help="auto (default) or {module: gpu} as given to from_pretrained")
    p.add_argument("--context-gib", metavar="X", help="CUDA context outside torch's allocator (default 0.5)")
    add_trainer_options(p)
    multi = p.add_argument_group("several GPUs and --fit (docs/plan.md)")
    multi.add_argument("--strategy", choices=STRATEGIES,
                       help="ddp, fsdp, zero2, zero3: one process per GPU, the answer per rank; device-map: one process, "
                            "the layers spread over the GPUs (the default with several --gpu-gib); single: one GPU")
    multi.add_argument("--gpus", metavar="N", help="N GPUs of the one --gpu-gib size (or unknown size)")
    multi.add_argument("--fsdp-sharding", choices=FSDP_SHARDING, help="FSDP's sharding (default full_shard)")
    multi.add_argument("--offload", choices=OFFLOADS,
                       help="CPU offload: optimizer (ZeRO-2/3: master weights, states, gradient partitions) or params "
                            "(ZeRO-3, FSDP: the parameters too); default none")
    multi.add_argument("--fit", action="store_true",
                       help="propose the configuration that fits these cards with the largest micro-batch and sequence "
                            "(options given are kept); prints each step of the search")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=func)


def add_trainer_options(p: Any) -> None:
    """trl's trainers and generation (kb/plan/trainers.py): without them kb plan plans SFT training as before."""
    from kb.plan.spec import REFS, TASKS, TRAINERS

    t = p.add_argument_group("trl trainers and generation (docs/plan.md)")
    t.add_argument("--trainer", choices=TRAINERS, help="the trl trainer (default sft); its defaults are trl's config's")
    t.add_argument("--ref-model", action="store_true", help="a separate full reference model is loaded (--ref model)")
    t.add_argument("--ref", choices=REFS, help="the reference: model (a second copy), adapter (the LoRA adapter "
                   "disabled; trl's default with LoRA), precomputed (precompute_ref_log_probs), none")
    t.add_argument("--prompt-len", metavar="N", help="prompt tokens per example (--seq = prompt + completion)")
    t.add_argument("--completion-len", metavar="N", help="completion tokens per example (GRPO: max_completion_length, default 512)")
    t.add_argument("--num-generations", metavar="N", help="GRPO: completions per prompt (default 8)")
    t.add_argument("--task", choices=TASKS, help="train (default) or generate: inference with the KV cache, "
                   "--batch sequences of --seq tokens")


def _number(dest: str, text: str) -> float | int:
    flag, is_whole, lo, hi, lo_open, hi_open = NUMBERS[dest]
    if is_whole:
        return whole(text, flag, int(lo), int(hi), SpecError, text_ok=True)
    value = real(text, flag, lo, hi, SpecError, lo_open=lo_open, hi_open=hi_open, text_ok=True)
    return int_if_whole(value) if dest == "lora_alpha" else value


def spec_from_args(ns: argparse.Namespace) -> tuple[RunSpec, str | None]:
    """The run (defaults < --from file < options) and a model named in the --from file, if any."""
    from kb.plan.gpus import bf16_refusal
    from kb.plan.refs import case_ref

    spec, model = RunSpec(), None
    data: dict[str, Any] = {}
    if ns.from_file is not None:
        data = read_settings(ns.from_file)
        spec = spec_from_settings(data)
        named = data.get("model_name_or_path") or data.get("base_model")
        if named is not None and not isinstance(named, str):
            raise SpecError("--from: model_name_or_path: expected a model id or a path")
        model = named
    changes = {f: getattr(ns, dest) for dest, f in OPTION_FIELDS.items() if getattr(ns, dest) is not None}
    for dest in NUMBERS:
        if dest in changes:
            changes[OPTION_FIELDS[dest]] = _number(dest, changes[OPTION_FIELDS[dest]])
    if ns.grad_ckpt is not None:
        changes["grad_ckpt"] = ("reentrant" if ns.reentrant else "nonreentrant") if ns.grad_ckpt else "off"
    elif ns.reentrant:
        changes["grad_ckpt"] = "reentrant"
    if ns.gpu_gib:
        changes["gpu_gib"] = tuple(real(x, "--gpu-gib", MIN_GPU_GIB, MAX_GPU_GIB, SpecError, text_ok=True)
                                   for x in ns.gpu_gib)
    if ns.device_map is not None:
        changes["device_map"] = parse_device_map(ns.device_map)
    for dest in ("strategy", "fsdp_sharding", "offload"):  # several GPUs (kb/plan/strategy.py)
        if getattr(ns, dest, None) is not None:
            changes[dest] = getattr(ns, dest)
    if getattr(ns, "gpus", None) is not None:
        changes["gpus"] = whole(ns.gpus, "--gpus", 1, MAX_GPUS, SpecError, text_ok=True)
    if "lora_r" in changes and "lora_alpha" not in changes and changes["lora_r"]:
        changes["lora_alpha"] = 2 * changes["lora_r"]
    changes.update(trainer_changes(ns, data if ns.from_file is not None else None, spec.with_(**changes)))
    spec = spec.with_(**changes)
    spec.check()
    refusal = bf16_refusal(spec.compute_dtype, spec.gpu_gib, case_ref("bf16-unsupported"))
    if refusal:
        raise SpecError(refusal)
    return spec, model


def trainer_changes(ns: argparse.Namespace, data: dict[str, Any] | None, spec: RunSpec) -> dict[str, Any]:
    """The trainer fields: a trl config in --from (read for the trainer --trainer names), then the options."""
    from kb.plan.trainers import trainer_from_settings

    out: dict[str, Any] = {}
    trainer = getattr(ns, "trainer", None)
    if trainer:
        out["trainer"] = trainer
    if getattr(ns, "task", None):
        out["task"] = ns.task
    if data and (trainer or spec.trainer) != "sft":
        read = trainer_from_settings(data, spec.with_(**out))
        out.update({k: getattr(read, k) for k in ("prompt_len", "completion_len", "num_generations", "grad_ckpt",
                                                  "disable_dropout", "ref") if getattr(read, k) != getattr(spec, k)})
    for dest, flag in (("prompt_len", "--prompt-len"), ("completion_len", "--completion-len"),
                       ("num_generations", "--num-generations")):
        if getattr(ns, dest, None) is not None:
            out[dest] = whole(getattr(ns, dest), flag, 1, MAX_BATCH if dest == "num_generations" else MAX_SEQ, SpecError,
                              text_ok=True)
    if getattr(ns, "ref_model", False) and getattr(ns, "ref", None) not in (None, "model"):
        raise SpecError(f"--ref-model and --ref {ns.ref}: name one reference")
    if getattr(ns, "ref_model", False) or getattr(ns, "ref", None):
        out["ref"] = "model" if ns.ref_model else ns.ref
    return out


def given_fields(ns: argparse.Namespace, spec: RunSpec) -> set[str]:
    """The RunSpec fields the user set (options, or a --from file): --fit keeps them as they are."""
    given = {f for dest, f in OPTION_FIELDS.items() if getattr(ns, dest) is not None}
    given |= {dest for dest in ("strategy", "offload") if getattr(ns, dest, None) is not None}
    if ns.grad_ckpt is not None or ns.reentrant:
        given.add("grad_ckpt")
    if ns.from_file is not None:  # what the file set differs from the defaults
        default = RunSpec()
        given |= {f for f in ("quant", "lora_r", "batch", "seq", "grad_accum", "optim", "grad_ckpt", "compute_dtype")
                  if getattr(spec, f) != getattr(default, f)}
    return given


def run_plan(ns: argparse.Namespace) -> int:
    from kb.cli.plan_text import render_text
    from kb.plan.names import resolve
    from kb.plan.report import plan_document
    from kb.plan.shapes import ShapeError, known_models, load_shape, shape_from_file

    if ns.list_models:
        if ns.format == "json":  # (audit49: --format json printed the text table)
            print_json({"models": [{"id": mid, "hub_id": cfg.get("hub_id") or None}
                                   for mid, cfg in known_models().items()]})
            return EXIT_OK
        for mid, cfg in known_models().items():
            print(f"{mid:<16} {cfg.get('hub_id', '')}")
        return EXIT_OK
    try:
        spec, from_model = spec_from_args(ns)
        if ns.config is not None:
            shape = shape_from_file(ns.config)
        else:
            model = ns.model or from_model
            if not model:
                raise SpecError("name the model: --model ID (Qwen/Qwen2.5-7B-Instruct, kb plan --list-models) "
                                "or --config PATH/config.json")
            shape = load_shape(str(model))
            if resolve(str(model)) == shape.name != str(model).strip().lower():
                spec = spec.with_(notes=(*spec.notes, f"{str(model).strip()[:80]} read as {shape.name} (the same shapes)"))
        if getattr(ns, "fit", False):
            from kb.plan.fit import fit_document

            best, fit = fit_document(shape, spec, given_fields(ns, spec))
            doc = plan_document(shape, best if best is not None else spec)
            doc["fit"] = fit
            if best is None:
                doc["fits"] = False
        else:
            doc = plan_document(shape, spec)
    except (SpecError, ShapeError) as exc:
        print(f"kb plan: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(spec.device_map, dict):  # (only then do the notes quote the user: no redaction import otherwise)
        doc["notes"] = _redacted_notes(doc["notes"])
    if ns.format == "json":
        print_json(doc)
    else:
        sys.stdout.write(render_text(doc))
    return EXIT_NO_MATCH if doc["fits"] is False else EXIT_OK


def _redacted_notes(notes: list[str]) -> list[str]:
    """(review50b) The plan's notes with secrets masked: they quote the user's --device-map keys (a token pasted as a
    key would reach standard output, which, unlike kb's messages on standard error, is not redacted as a whole)."""
    from kb.cli.output import _redacted  # (kb's standard-error redaction: the knowledge's secret table)

    return [_redacted(n) for n in notes]
