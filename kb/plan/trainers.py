"""trl's trainers (DPO, ORPO, KTO, GRPO, reward) and generation in `kb plan`: what each adds to an SFT step.

Pure Python (no torch, no trl). The facts come from trl's own code, kept in tables/plan-trainers.toml with the
trl versions they were read from (docs/plan.md derives each term):

- a trainer's step is planned as an SFT step of its policy forward (kb/plan/estimate.py) over the rows it
  really runs (chosen and rejected concatenated: 2 x batch rows; GRPO: batch completions), then changed
  where the trainer differs:
  - the head: trl's fused LM head (DPO, KTO, GRPO) projects only the completion tokens, in tiles, so the
    full logits never exist; ORPO materialises the logits of every position; a reward model has a
    one-output score head and no lm_head;
  - the reference: a second copy of the model (its weights), the PEFT adapter disabled (no weights), or
    precomputed log-probs (none); its forward runs under no_grad after the policy's, while the policy's
    activations are held;
  - with a 4-bit/8-bit base, DPO/KTO/GRPO/reward cast the LoRA weights to bf16 (half the adapter,
    gradient and AdamW bytes); ORPO runs prepare_model_for_kbit_training and casts embed/lm_head back;
  - GRPO generates its completions first (model.generate with the KV cache, under no_grad);
- ``--task generate`` plans inference: weights + the KV cache of batch x context + one layer's transient.
"""

from __future__ import annotations

from kb.knowledge.tables import read_table
from kb.plan.checks import MAX_BATCH, MAX_SEQ, whole
from kb.plan.spec import REFS, TASKS, TRAINERS, RunSpec, SpecError
from kb.knowledge.values import Frozen

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

ADAMW_SAME_DTYPE = ("adamw_torch", "adamw_torch_fused")  # states follow the parameter's dtype


def table() -> dict[str, Any]:
    """tables/plan-trainers.toml, as read (read_table keeps it for the process)."""
    return read_table("plan-trainers")


def facts(trainer: str) -> dict[str, Any]:
    return dict(table()["trainer"][trainer])


def trainer_constants() -> dict[str, float]:
    t = table()
    out = {k: float(v) for section in t["constants"].values() for k, v in section.items()}
    out.update({f"fused_{k}": float(v) for k, v in t["fused_head"].items()})
    return out


def trl_versions() -> dict[str, Any]:
    """The trl versions the trainer arithmetic was read from and measured on, and the installed trl (its
    version from the package metadata: trl is never imported), inside them or not."""
    t = table()["trl"]
    installed: str | None
    try:
        from importlib.metadata import PackageNotFoundError, version

        try:
            installed = version("trl")
        except (PackageNotFoundError, OSError, ValueError):  # not installed, or its METADATA unreadable / not UTF-8
            installed = None
    except ImportError:  # pragma: no cover - importlib.metadata is stdlib since 3.8
        installed = None
    inside = None if installed is None else _within(installed, str(t["min"]), str(t["below"]))
    return {"versions": t["versions"], "measured": t["measured"], "installed": installed, "installed_in_range": inside}


def _release(text: str) -> tuple[int, ...]:
    nums = []
    for piece in text.split("+")[0].split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        nums.append(int(digits))
    return tuple(nums)


def _within(installed: str, lo: str, below: str) -> bool:
    v = _release(installed)
    return _release(lo) <= v < _release(below)


# --------------------------------------------------------------------------- the run as trl runs it


def check_trainer(spec: RunSpec) -> None:
    """The trainer fields of ``spec``: names, lengths, and what trl itself refuses (SpecError)."""
    for name, value, allowed in (("--trainer", spec.trainer, TRAINERS), ("--task", spec.task, TASKS)):
        if value not in allowed:
            shown = value if isinstance(value, str) and len(value) <= 40 else type(value).__name__
            raise SpecError(f"{name} {shown!r}: expected one of {', '.join(allowed)}")
    if spec.ref is not None and spec.ref not in REFS:
        shown = spec.ref if isinstance(spec.ref, str) and len(spec.ref) <= 40 else type(spec.ref).__name__
        raise SpecError(f"--ref {shown!r}: expected one of {', '.join(REFS)}")
    for name, value in (("--prompt-len", spec.prompt_len), ("--completion-len", spec.completion_len)):
        if value is not None:
            whole(value, name, 1, MAX_SEQ, SpecError)
    if spec.num_generations is not None:
        whole(spec.num_generations, "--num-generations", 1, MAX_BATCH, SpecError)
    if spec.disable_dropout is not None and not isinstance(spec.disable_dropout, bool):
        raise SpecError("disable_dropout: expected true or false")
    if spec.task == "generate":
        if spec.trainer != "sft":
            raise SpecError("--task generate plans inference: it takes no --trainer")
        return
    t = spec.trainer
    if spec.ref is not None:
        if t in ("sft", "orpo", "reward") and spec.ref != "none":
            raise SpecError(f"--trainer {t} uses no reference model (--ref-model / --ref {spec.ref} does not apply)")
        if spec.ref == "adapter" and spec.lora_r == 0:
            raise SpecError("--ref adapter: the reference is the PEFT adapter disabled, which needs LoRA (--lora-r > 0)")
        if spec.ref == "precomputed" and t == "grpo":
            raise SpecError("--trainer grpo computes its reference log-probs on its own completions: they cannot be "
                            "precomputed")
    if t == "kto" and spec.batch < int(facts("kto").get("min_batch", 1)):
        raise SpecError("--trainer kto needs --batch 2 or more: trl refuses per_device_train_batch_size 1 with "
                        "loss_type 'kto' (the KL term needs other completions in the batch)")
    if t == "grpo":
        gens = spec.num_generations or int(facts("grpo")["defaults"]["num_generations"])
        gen_batch = spec.batch * spec.grad_accum
        if gen_batch % gens:
            raise SpecError(f"--trainer grpo: the generation batch (batch x accumulation = {gen_batch} completions) "
                            f"must be divisible by --num-generations {gens}: trl's GRPOConfig refuses it "
                            "(per_device_train_batch_size counts completions, not prompts)")


def resolve_defaults(spec: RunSpec) -> RunSpec:
    """``spec`` with what trl does for its trainer filled in, each default said in ``notes`` (idempotent:
    RunSpec.resolved calls it before its own defaults)."""
    if spec.task == "generate":
        return spec
    f = facts(spec.trainer)
    defaults = f.get("defaults", {})
    changes: dict[str, Any] = {}
    notes = list(spec.notes)
    cfg = f["config"]
    if spec.grad_ckpt is None and defaults.get("gradient_checkpointing"):
        changes["grad_ckpt"] = "nonreentrant"
        notes.append(f"gradient checkpointing on: trl's {cfg} defaults to gradient_checkpointing=True "
                     "(non-reentrant in transformers 5); --no-grad-ckpt plans it off")
    if spec.kbit_prep is None and spec.quant != "none":
        changes["kbit_prep"] = bool(f.get("kbit_prep"))
        if f.get("kbit_prep"):
            notes.append(f"prepare_model_for_kbit_training: the {spec.trainer.upper()} trainer calls it on a k-bit base, "
                         "then casts embed_tokens and lm_head back to bf16")
        else:
            notes.append(f"no prepare_model_for_kbit_training: trl's {spec.trainer.upper()} trainer does not call it; "
                         "it casts the LoRA weights to bf16 on a k-bit base")
    if spec.disable_dropout is None:
        changes["disable_dropout"] = bool(defaults.get("disable_dropout", False))
        if changes["disable_dropout"] and spec.lora_r and spec.lora_dropout > 0:
            notes.append(f"LoRA dropout off in effect: {cfg} defaults to disable_dropout=True")
    if spec.ref is None:
        ref = f.get("ref", "none")
        if ref == "adapter" and spec.lora_r == 0:
            ref = "model"
        changes["ref"] = ref
        if spec.trainer in ("dpo", "kto"):
            notes.append("reference: the LoRA adapter disabled (no second copy); --ref-model plans a separate one"
                         if ref == "adapter" else "reference: trl loads a second copy of the model (full fine-tuning); "
                         "--ref precomputed plans precompute_ref_log_probs=True")
        elif spec.trainer == "grpo":
            notes.append("no reference model: GRPOConfig's beta defaults to 0.0; --ref-model (or --ref adapter) plans beta > 0")
    elif spec.ref == "model" and spec.trainer == "grpo":
        notes.append("reference model: GRPO with beta > 0 and a separate reference")
    if spec.trainer == "grpo":
        comp = spec.completion_len or int(defaults["max_completion_length"])
        if spec.completion_len is None:
            changes["completion_len"] = comp
            notes.append(f"completions of {comp} tokens: GRPOConfig's max_completion_length default (--completion-len)")
        if spec.prompt_len is None:
            if spec.seq <= comp:
                raise SpecError(f"--trainer grpo: --seq {spec.seq} is prompt + completion and must exceed the completion "
                                f"length {comp} (or give --prompt-len)")
            changes["prompt_len"] = spec.seq - comp
        if spec.num_generations is None:
            changes["num_generations"] = int(defaults["num_generations"])
            notes.append(f"num_generations {changes['num_generations']}: GRPOConfig's default")
    prompt = changes.get("prompt_len", spec.prompt_len)
    comp = changes.get("completion_len", spec.completion_len)
    capped = spec.trainer not in ("sft", "grpo")  # --seq is the config's max_length: trl cuts each row to it
    if capped and prompt is not None and prompt >= spec.seq:
        raise SpecError(f"--trainer {spec.trainer}: --prompt-len {prompt} leaves no completion within --seq {spec.seq} "
                        f"({cfg}'s max_length, {defaults.get('max_length', 1024)} by default: trl cuts prompt + completion to it, "
                        "or drops such examples): give a --seq above the prompt length")
    if capped and prompt is not None and comp is not None and prompt + comp > spec.seq:
        changes["completion_len"] = spec.seq - prompt
        notes.append(f"rows of {spec.seq} tokens: --prompt-len {prompt} + --completion-len {comp} exceeds --seq "
                     f"({cfg}'s max_length), which trl cuts each row to (completions of {spec.seq - prompt} tokens)")
    elif prompt is not None and comp is not None and spec.seq != prompt + comp:
        changes["seq"] = prompt + comp
    elif spec.trainer != "sft" and prompt is not None and comp is None and spec.seq > prompt:
        changes["completion_len"] = spec.seq - prompt
    elif spec.trainer != "sft" and comp is not None and prompt is None and spec.seq > comp:
        changes["prompt_len"] = spec.seq - comp
    if not changes:
        return spec
    return spec.with_(**changes, notes=tuple(notes))


class TrainerRun(Frozen):
    """The policy forward of a trainer's step as the SFT arithmetic sees it, and what the trainer adds."""

    trainer: str
    ref: str
    rows: int  # sequences in the policy's forward: batch x rows per example
    length: int  # tokens per row (prompt + completion)
    scored: int  # tokens per row whose log-prob is taken (the completion; all when not known)
    generation_batch: int  # GRPO: completions generated per step on this GPU
    prompt: int


def run_of(spec: RunSpec) -> TrainerRun:
    """``spec`` (resolved) as trl runs it."""
    f = facts(spec.trainer)
    rows = spec.batch * int(f.get("rows", 1))
    scored = spec.completion_len if spec.completion_len is not None else spec.seq
    gen = spec.batch * spec.grad_accum if f.get("generates") else 0
    prompt = spec.prompt_len if spec.prompt_len is not None else max(spec.seq - scored, 0)
    return TrainerRun(trainer=spec.trainer, ref=spec.ref or "none", rows=rows, length=spec.seq, scored=min(scored, spec.seq),
                      generation_batch=gen, prompt=prompt)


def sft_equivalent(spec: RunSpec, run: TrainerRun) -> RunSpec:
    """The SFT step of the trainer's policy forward: its rows and length, dropout as trl leaves it."""
    changes: dict[str, Any] = {"trainer": "sft", "task": "train", "ref": None, "prompt_len": None, "completion_len": None,
                               "num_generations": None, "disable_dropout": None, "batch": run.rows, "seq": run.length}
    if spec.disable_dropout:
        changes["lora_dropout"] = 0.0
    if facts(spec.trainer).get("lora_bf16_with_kbit") and spec.quant != "none" and spec.lora_r > 0:
        changes["half_adapters"] = True  # trl casts the LoRA weights to bf16: the adapters share their input
    return spec.with_(**changes)


# --------------------------------------------------------------------------- terms


def inference_layer_bytes(shape: Any, tokens: int, c: dict[str, float], hidden_bytes: float = 4.0) -> float:
    """The largest transient of one decoder layer in a no_grad forward: ``hidden_bytes`` per token and hidden unit
    (the residual in and out), and the larger of the norm (fp32 copy and normalised output), attention (q, k, v,
    output) and the MLP (gate, up, the activation's output)."""
    h, i, q, kv = shape.hidden, shape.intermediate, shape.q_dim, shape.kv_dim
    inner = max(4 * h + 4 * h + 2 * h, 2 * q + 4 * kv + 2 * q, 6 * i)
    return (hidden_bytes * h + inner) * tokens * c["inference_scale"]


def fused_tile_bytes(shape: Any, scored_tokens: int, dbytes: int, c: dict[str, float]) -> float:
    """trl's fused LM head projects [token_chunk x vocab_chunk] tiles into one buffer of the compute dtype."""
    return min(scored_tokens, c["fused_token_chunk"]) * min(shape.vocab, c["fused_vocab_chunk"]) * dbytes


def kv_cache_bytes(shape: Any, layers: int, batch: int, tokens: int, dbytes: int) -> float:
    """A DynamicCache: keys and values of every layer, batch x tokens x kv width in the compute dtype."""
    return float(layers * batch * tokens * 2 * shape.kv_dim * dbytes)


def _phase_add(phases: dict[str, float], delta: float, skip: tuple[str, ...] = ()) -> None:
    for k in phases:
        if k not in skip:
            phases[k] += delta


def estimate_trainer(shape: Any, spec: RunSpec, c: dict[str, float]) -> list[Any]:
    """Per-GPU plans of a trl trainer's step (or of generation): the SFT plan of its policy forward
    (kb/plan/estimate.py), changed where the trainer differs (module docstring)."""
    from kb.plan.estimate import DTYPE_BYTES, GIB, estimate, logits_bytes

    spec = spec.resolved()
    spec.check()
    c = {**trainer_constants(), **c}  # constants passed in (a fit trying values) win
    if spec.task == "generate":
        return estimate_generate(shape, spec, c)
    f = facts(spec.trainer)
    run = run_of(spec)
    sft = sft_equivalent(spec, run).resolved()
    plans = estimate(shape, sft, c)
    dbytes = DTYPE_BYTES[sft.compute_dtype]
    h, vocab, emb = shape.hidden, shape.vocab, shape.embedding_params()
    rows_tokens = run.rows * run.length
    scored_tokens = run.rows * run.scored
    for p in plans:
        parts, phases = p.parts, p.phases
        has_head = "lm_head" in p.modules or (shape.tied and "model.embed_tokens" in p.modules)
        n_emb = ("model.embed_tokens" in p.modules) + ("lm_head" in p.modules and not shape.tied)
        sft_logits = (logits_bytes(shape, sft, c) + (emb * dbytes if sft.prep else 0.0)) if has_head else 0.0
        # a k-bit base: trl casts the LoRA weights to bf16 (adapters, their gradients and AdamW's states halve)
        if f.get("lora_bf16_with_kbit") and sft.quant != "none" and sft.lora_r > 0:
            params = parts["adapter_parameters"] / 4.0
            d_a = d_g = -2.0 * params
            d_o = -parts["optimizer_states"] / 2.0 if sft.optim in ADAMW_SAME_DTYPE else 0.0
            for k in phases:
                if k != "setup":
                    temp = c["optimizer_step_temp"] * d_g if k == "optimizer step" and parts["optimizer_states"] else 0.0
                    phases[k] += d_a + d_g + d_o + temp
            parts["adapter_parameters"] += d_a
            parts["gradients"] += d_g
            parts["optimizer_states"] += d_o
        # ORPO: after prepare_model_for_kbit_training, embed_tokens and lm_head are cast back to bf16
        if f.get("kbit_prep_keeps_io_half") and sft.prep and dbytes == 2 and n_emb:
            d_u = -2.0 * emb * n_emb
            _phase_add(phases, d_u, skip=("setup",))
            parts["kbit_prep_upcast"] += d_u
        # a reward model has a score head instead of lm_head
        if f["head"] == "score" and "lm_head" in p.modules and not shape.tied:
            d_w = -emb * dbytes - (2.0 * emb if sft.prep and dbytes == 2 else 0.0)
            _phase_add(phases, d_w)
            parts["weights"] -= emb * dbytes
        held = phases["loss backward"] - sft_logits
        saved = 0.0
        if has_head:
            if f["head"] == "fused":
                saved = scored_tokens * (h * c["fused_saved_bytes_per_token_hidden"] + c["fused_bytes_per_token"]) \
                    + rows_tokens * h * c["final_norm_bytes_per_token_hidden"]
                backward = scored_tokens * h * c["fused_grad_bytes_per_token_hidden"] + fused_tile_bytes(shape, scored_tokens, dbytes, c)
                if sft.lora_r == 0:  # the head's weight gradient, accumulated in fp32 then cast
                    backward += vocab * h * (4 + dbytes)
                head = saved + backward
            elif f["head"] == "logits" and spec.trainer != "sft":
                per = c["orpo_logits_bytes_per_element"] + (c["softcap_bytes_per_element"] if shape.final_softcap else 0.0)
                head = per * rows_tokens * vocab
            elif f["head"] == "score":
                head = rows_tokens * h * (c["final_norm_bytes_per_token_hidden"] + dbytes)
            else:
                head = sft_logits
            phases["loss backward"] = held + head
            parts["logits_and_loss"] = head
        # the reference's no_grad forward, after the policy's (its activations held)
        if f.get("ref_after_policy") and run.ref in ("model", "adapter") and p.layers:
            ref_fwd = inference_layer_bytes(shape, rows_tokens, c)
            if has_head:
                ref_fwd += fused_tile_bytes(shape, scored_tokens, dbytes, c) + scored_tokens * h * dbytes + rows_tokens * h * dbytes
            phases["reference forward"] = held + saved + ref_fwd
        base = parts["weights"] + parts["kbit_prep_upcast"] + parts["adapter_parameters"] + parts["cuda_workspace"]
        opt = parts["optimizer_states"]
        if f.get("generates") and p.layers:
            g = run.generation_batch
            kv = kv_cache_bytes(shape, p.layers, g, run.length, dbytes)
            gen = kv + kv / p.layers + inference_layer_bytes(shape, g * run.prompt, c)
            if has_head:
                gen += g * vocab * c["generate_logits_bytes_per_vocab"]
            phases["generation"] = base + opt + gen
            parts["kv_cache"] = kv
            if max(phases, key=phases.__getitem__) == "generation":
                parts["activations"] = gen - kv
            if run.ref in ("model", "adapter"):
                ref_fwd = inference_layer_bytes(shape, g * run.length, c)
                if has_head:
                    ref_fwd += fused_tile_bytes(shape, g * run.scored, dbytes, c) + g * run.length * h * dbytes
                phases["reference forward"] = base + opt + ref_fwd
        if run.ref == "model":  # a second copy of the model, as loaded (same dtype and quantization, no adapters)
            ref_w = parts["weights"]
            _phase_add(phases, ref_w)
            parts["reference_model"] = ref_w
        _finish(p, phases, parts, sft.tokens, c, GIB)
    return plans


def _finish(p: Any, phases: dict[str, float], parts: dict[str, float], tokens: int, c: dict[str, float], gib: int) -> None:
    """The peak and its reserved figure (kb/plan/estimate.py's allocator model), parts as they are at the peak."""
    peak_phase = max(phases, key=phases.__getitem__)
    peak = phases[peak_phase]
    slack = c["reserved_extra_gib"] + c["reserved_per_1k_tokens_gib"] * tokens / 1024
    reserved = peak * c["reserved_factor"] + slack * gib
    if peak_phase != "loss backward":
        parts["logits_and_loss"] = 0.0
    parts["allocator_slack"] = reserved - peak
    p.phases, p.parts, p.peak_phase, p.peak_allocated, p.peak_reserved = phases, parts, peak_phase, peak, reserved


def estimate_generate(shape: Any, spec: RunSpec, c: dict[str, float]) -> list[Any]:
    """Inference with the KV cache (``model.generate``, a DynamicCache): ``--batch`` sequences of ``--seq`` tokens (the
    prompt: ``--prompt-len``, else the whole context). Two peaks, measured apart on an H100 (docs/plan.md):

    - ``prefill``: the prompt's forward with logits_to_keep=1 (no full logits): the prompt's KV cache of every layer
      and the last layer's transient (the MLP's 6 x intermediate and 8 bytes per hidden unit, per prompt token);
    - ``decode``: the full cache, one layer's keys and values copied as the cache grows by ``torch.cat``, and the
      last position's logits (bf16, the fp32 copy, the processed scores and the previous step's).

    Both on top of the weights and one cuBLAS workspace (generate leaves 32 MiB allocated, not training's 64)."""
    from kb.plan.estimate import DTYPE_BYTES, GIB, estimate

    weights_spec = spec.with_(task="train", lora_r=max(spec.lora_r, 1), target_modules="all-linear", kbit_prep=False,
                              grad_ckpt="off", prompt_len=None, completion_len=None, num_generations=None,
                              disable_dropout=None, ref=None, optim="sgd")
    plans = estimate(shape, weights_spec, c)
    dbytes = DTYPE_BYTES[spec.compute_dtype or "bf16"]
    context = spec.seq
    prompt = min(spec.prompt_len, context) if spec.prompt_len is not None else (
        context - spec.completion_len if spec.completion_len is not None and spec.completion_len < context else context)
    for p in plans:
        has_head = "lm_head" in p.modules or (shape.tied and "model.embed_tokens" in p.modules)
        ws = c["generate_workspace_gib"] * GIB if p.parts["cuda_workspace"] else 0.0
        base = p.parts["weights"] + ws
        kv_prompt = kv_cache_bytes(shape, p.layers, spec.batch, prompt, dbytes)
        kv_full = kv_cache_bytes(shape, p.layers, spec.batch, context, dbytes)
        logits = spec.batch * shape.vocab * c["generate_logits_bytes_per_vocab"] if has_head else 0.0
        prefill_act = inference_layer_bytes(shape, spec.batch * prompt, c, c["generate_prefill_hidden_bytes_per_token"]) \
            if p.layers else 0.0
        phases = {"prefill": base + kv_prompt + prefill_act + logits,
                  "decode": base + kv_full + (kv_full / p.layers if p.layers else 0.0) + logits}
        parts = {k: 0.0 for k in p.parts}
        parts.update(weights=p.parts["weights"], cuda_workspace=ws, kv_cache=kv_full, activations=prefill_act)
        peak_phase = max(phases, key=phases.__getitem__)
        if peak_phase == "prefill":
            parts["kv_cache"] = kv_prompt
        else:
            parts["activations"] = 0.0
        _finish(p, phases, parts, 0, c, GIB)  # no per-token slack: the reserved figure is scored, not fitted (docs/plan.md)
        p.parts["logits_and_loss"] = logits
        p.paged = 0.0  # no optimizer
    return plans


def trainer_document(spec: RunSpec) -> dict[str, Any] | None:
    """The ``trainer`` object of kb plan's JSON (None for plain SFT training): the trainer as planned and the
    trl versions the arithmetic holds for."""
    if spec.task == "generate":
        return {"task": "generate", "batch": spec.batch, "context": spec.seq, "prompt_len": spec.prompt_len}
    if spec.trainer == "sft":
        return None
    f = facts(spec.trainer)
    run = run_of(spec)
    return {"name": spec.trainer, "config": f["config"], "reference": run.ref, "rows_per_example": int(f.get("rows", 1)),
            "rows": run.rows, "sequence": run.length, "prompt_len": spec.prompt_len, "completion_len": spec.completion_len,
            "scored_tokens_per_row": run.scored, "head": f["head"], "num_generations": spec.num_generations,
            "generation_batch": run.generation_batch or None, "disable_dropout": spec.disable_dropout,
            "trl": trl_versions()}


def _flat(data: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for value in data.values():
        if isinstance(value, dict):
            flat.update({k: v for k, v in value.items() if isinstance(k, str)})
    flat.update({k: v for k, v in data.items() if isinstance(k, str) and not isinstance(v, dict)})
    return flat


def trainer_from_settings(data: dict[str, Any], spec: RunSpec) -> RunSpec:
    """The trl config fields of a ``--from`` file (DPOConfig, ORPOConfig, KTOConfig, GRPOConfig, RewardConfig) on top
    of ``spec`` (its TrainingArguments fields already read by kb/plan/spec.py), for the trainer ``spec`` names.
    ``gradient_checkpointing: false`` turns checkpointing off here: trl's configs default it to true."""
    from kb.plan.spec import _flag

    flat = _flat(data)
    changes: dict[str, Any] = {}
    for key, name in (("max_prompt_length", "prompt_len"), ("max_completion_length", "completion_len"),
                      ("num_generations", "num_generations")):
        if flat.get(key) is not None:
            if key == "max_completion_length" and spec.trainer not in ("grpo",) and flat.get("max_prompt_length") is None:
                continue  # ORPO's max_completion_length bounds the completion inside max_length: seq stays max_length
            hi = MAX_BATCH if name == "num_generations" else MAX_SEQ
            changes[name] = whole(flat[key], f"--from: {key}", 1, hi, SpecError, text_ok=True)
    if _flag(flat.get("gradient_checkpointing"), "gradient_checkpointing") is False and spec.grad_ckpt is None:
        changes["grad_ckpt"] = "off"
    if flat.get("disable_dropout") is not None:
        changes["disable_dropout"] = _flag(flat["disable_dropout"], "disable_dropout")
    if _flag(flat.get("precompute_ref_log_probs"), "precompute_ref_log_probs") and spec.trainer in ("dpo", "kto"):
        changes["ref"] = "precomputed"
    if spec.trainer == "grpo" and flat.get("beta") is not None:
        try:
            beta = float(flat["beta"])
        except (TypeError, ValueError):
            raise SpecError(f"--from: beta: expected a number, not {str(flat['beta'])[:40]!r}") from None
        if beta != beta or beta < 0:  # NaN or negative
            raise SpecError("--from: beta: expected a number >= 0")
        if beta > 0:
            changes["ref"] = "adapter" if spec.lora_r else "model"
    if not changes:
        return spec
    return spec.with_(**changes)
