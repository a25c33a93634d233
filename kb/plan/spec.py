"""What is run: quantization, LoRA, batch, checkpointing, optimizer, placement (`kb plan`'s options).

A :class:`RunSpec` is built from the command line, from a TrainingArguments/SFTConfig file (``--from``), or
from `kb env --config`'s settings. Placement is a list of GPU sizes and a device map: ``auto`` (layers spread
over the GPUs, embedding on the first, head on the last) or an explicit ``{module: gpu}`` mapping as given to
``from_pretrained(device_map=...)``.
"""

from __future__ import annotations

from kb.knowledge.precompiled import pattern  # (the regex cache's: no `re` import, kb diagnose plans OOM logs)
from kb.plan.checks import (
    MAX_BATCH,
    MAX_CONTEXT_GIB,
    MAX_DEVICE_MAP_ENTRIES,
    MAX_GPU_GIB,
    MIN_GPU_GIB,
    MAX_GPUS,
    MAX_GRAD_ACCUM,
    MAX_LORA_ALPHA,
    MAX_LORA_R,
    MAX_SEQ,
    MAX_TOKENS,
    int_if_whole,
    real,
    whole,
)
from kb.plan.files import InputFileError, load_json, read_bounded
from kb.plan.gpus import BF16_MIN_CAPABILITY, without_bf16
from kb.knowledge.values import Frozen

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

QUANTS = ("none", "int8", "nf4", "fp4")
DTYPES = ("bf16", "fp16", "fp32")
CKPT = ("off", "nonreentrant", "reentrant")
ATTN = ("sdpa", "eager", "flash_attention_2")
# trl trainers and generation (kb/plan/trainers.py): the defaults plan SFT training, as before
TRAINERS = ("sft", "dpo", "orpo", "kto", "grpo", "reward")
REFS = ("model", "adapter", "precomputed", "none")
TASKS = ("train", "generate")
OPTIMIZERS = ("adamw_torch", "adamw_torch_fused", "adamw_8bit", "adamw_bnb_8bit", "paged_adamw_8bit",
              "paged_adamw_32bit", "adafactor", "sgd")
# multi-GPU strategies (kb/plan/strategy.py): None/"single"/"device-map" plan as before
STRATEGIES = ("single", "device-map", "ddp", "fsdp", "zero2", "zero3")
FSDP_SHARDING = ("full_shard", "shard_grad_op")
OFFLOADS = ("none", "optimizer", "params")  # params: parameters too (FSDP's cpu_offload, ZeRO-3 offload_param)


class SpecError(ValueError):
    """An option value kb plan cannot use; the message says which and why."""


class RunSpec(Frozen):
    quant: str = "none"
    double_quant: bool = True
    compute_dtype: str | None = None  # None: bf16, or fp16 on a card without native bf16 (kb/plan/gpus.py)
    lora_r: int = 16
    lora_alpha: float = 32
    lora_dropout: float = 0.05
    target_modules: str = "all-linear"
    batch: int = 1
    seq: int = 1024
    grad_ckpt: str | None = None  # None: as the libraries do (on under prepare_model_for_kbit_training)
    optim: str = "adamw_torch"
    grad_accum: int = 1
    kbit_prep: bool | None = None  # None: on for int8/nf4/fp4, as in the usual QLoRA recipe
    attn: str = "sdpa"
    autocast: bool = True  # the Trainer autocasts when bf16/fp16 is set; a hand-written loop may not
    half_adapters: bool = False  # LoRA weights in the compute dtype (trl casts them so on a k-bit base), not peft's fp32
    gpu_gib: tuple[float, ...] = ()
    device_map: Any = None  # None/"auto" or {module: gpu index}
    context_gib: float | None = None
    notes: tuple[str, ...] = ()
    # trl trainers and generation (kb/plan/trainers.py); None: what trl 1.16 does for the trainer
    trainer: str = "sft"
    ref: str | None = None  # model (a second copy) | adapter (PEFT adapter disabled) | precomputed | none
    prompt_len: int | None = None
    completion_len: int | None = None
    num_generations: int | None = None
    disable_dropout: bool | None = None
    task: str = "train"  # train | generate (inference with the KV cache)
    # --- multi-GPU strategies (kb/plan/strategy.py); the defaults plan exactly as before
    strategy: str | None = None  # None: one GPU, or the layers spread over several --gpu-gib (device-map)
    gpus: int | None = None  # --gpus N: ranks (each of the one --gpu-gib size, if given)
    fsdp_sharding: str = "full_shard"
    offload: str = "none"

    @property
    def prep(self) -> bool:
        """Whether prepare_model_for_kbit_training runs (only meaningful for a quantized model)."""
        if self.quant == "none":
            return False
        return True if self.kbit_prep is None else self.kbit_prep

    @property
    def tokens(self) -> int:
        return self.batch * self.seq

    def with_(self, **changes: Any) -> RunSpec:
        return self.replace(**changes)

    def resolved(self) -> RunSpec:
        """The run with the defaults the libraries apply filled in (each one said in ``notes``):
        - checkpointing: prepare_model_for_kbit_training turns it on (peft's use_gradient_checkpointing=True,
          no use_reentrant given: torch's reentrant checkpoint); the Trainer never turns it off again;
        - compute dtype: bf16, or fp16 where a GPU is a card without native bf16 (tables/gpus.toml)."""
        if self.trainer != "sft" or self.task != "train":
            from kb.plan.trainers import resolve_defaults

            self = resolve_defaults(self)  # noqa: PLW0642 - trl's defaults first, then the libraries' below
        changes: dict[str, Any] = {}
        notes = list(self.notes)
        if self.grad_ckpt is None:
            changes["grad_ckpt"] = "reentrant" if self.prep else "off"
            if self.prep:
                notes.append("gradient checkpointing on: prepare_model_for_kbit_training turns it on by default "
                             "(peft's use_gradient_checkpointing=True); --no-grad-ckpt plans one that passes "
                             "use_gradient_checkpointing=False")
        if self.compute_dtype is None:
            slow = without_bf16(self.gpu_gib)
            changes["compute_dtype"] = "fp16" if slow else "bf16"
            if slow:
                notes.append(f"fp16 compute: GPU {slow[0]} is a {slow[1]['name']}, without native bf16 "
                             f"(compute capability before {BF16_MIN_CAPABILITY:.1f})")
        if not changes:
            return self
        return self.replace(**changes, notes=tuple(notes))

    def check(self) -> None:
        """Every field of the right type and within physical bounds (kb/plan/checks.py); SpecError if not."""
        for name, value, allowed in (("--quant", self.quant, QUANTS), ("--compute-dtype", self.compute_dtype, DTYPES),
                                     ("--grad-ckpt", self.grad_ckpt, CKPT), ("--attn", self.attn, ATTN),
                                     ("--optim", self.optim, OPTIMIZERS)):
            if value is None and name in ("--compute-dtype", "--grad-ckpt"):
                continue
            if value not in allowed:
                shown = value if isinstance(value, str) and len(value) <= 40 else type(value).__name__
                raise SpecError(f"{name} {shown!r}: expected one of {', '.join(allowed)}")
        for name, flag in (("--double-quant", self.double_quant), ("--autocast", self.autocast),
                           ("--kbit-prep", self.kbit_prep)):
            if not isinstance(flag, bool) and not (flag is None and name == "--kbit-prep"):
                raise SpecError(f"{name}: expected true or false, not {str(flag)[:40]!r}")
        whole(self.batch, "--batch", 1, MAX_BATCH, SpecError)
        whole(self.seq, "--seq", 1, MAX_SEQ, SpecError)
        whole(self.grad_accum, "--grad-accum", 1, MAX_GRAD_ACCUM, SpecError)
        if self.batch * self.seq > MAX_TOKENS:
            raise SpecError(f"--batch x --seq is {self.batch * self.seq:,} tokens a micro-batch: more than {MAX_TOKENS:,}")
        whole(self.lora_r, "--lora-r (0 = full fine-tuning)", 0, MAX_LORA_R, SpecError)
        real(self.lora_alpha, "--lora-alpha", 0.0, MAX_LORA_ALPHA, SpecError, lo_open=self.lora_r > 0)  # unused at r=0
        real(self.lora_dropout, "--lora-dropout", 0.0, 1.0, SpecError, hi_open=True)
        if (not isinstance(self.target_modules, str) or not self.target_modules.strip() or len(self.target_modules) > 2000
                or any(ch < " " for ch in self.target_modules)):
            raise SpecError("--target-modules: expected all-linear or a comma list of module names")
        if len(self.gpu_gib) > MAX_GPUS:
            raise SpecError(f"--gpu-gib: {len(self.gpu_gib)} GPUs; kb plan plans at most {MAX_GPUS}")
        for gib in self.gpu_gib:
            real(gib, "--gpu-gib", MIN_GPU_GIB, MAX_GPU_GIB, SpecError)
        if self.context_gib is not None:
            real(self.context_gib, "--context-gib", 0.0, MAX_CONTEXT_GIB, SpecError)
        if self.device_map is not None:
            check_device_map(self.device_map, len(self.gpu_gib))
        if (self.trainer, self.task, self.ref, self.prompt_len, self.completion_len, self.num_generations,
                self.disable_dropout) != ("sft", "train", None, None, None, None, None):
            from kb.plan.trainers import check_trainer

            check_trainer(self)
        self._check_strategy()

    def _check_strategy(self) -> None:
        """The multi-GPU fields (kb/plan/strategy.py): known names, a rank count that matches --gpu-gib."""
        for name, value, allowed in (("--strategy", self.strategy, STRATEGIES), ("--fsdp-sharding", self.fsdp_sharding, FSDP_SHARDING),
                                     ("--offload", self.offload, OFFLOADS)):
            if value is not None and value not in allowed:
                shown = value if isinstance(value, str) and len(value) <= 40 else type(value).__name__
                raise SpecError(f"{name} {shown!r}: expected one of {', '.join(allowed)}")
        if self.gpus is not None:
            whole(self.gpus, "--gpus", 1, MAX_GPUS, SpecError)
            if len(self.gpu_gib) > 1 and len(self.gpu_gib) != self.gpus:
                raise SpecError(f"--gpus {self.gpus} with {len(self.gpu_gib)} --gpu-gib sizes: give one size, or one per GPU")
        if self.offload != "none" and self.strategy not in ("fsdp", "zero2", "zero3"):
            raise SpecError("--offload needs --strategy fsdp, zero2 or zero3 (DDP and a single GPU keep everything on the GPU)")
        if self.offload == "params" and self.strategy == "zero2":
            raise SpecError("--offload params needs --strategy zero3 or fsdp (ZeRO-2 offloads the optimizer only)")


def check_device_map(mapping: Any, n_gpu: int) -> None:
    """A {module: GPU index} mapping whose indexes name given GPUs (or, with no --gpu-gib, at most MAX_GPUS)."""
    if not isinstance(mapping, dict):
        raise SpecError("--device-map: expected auto or a JSON object {module: gpu}")
    if len(mapping) > MAX_DEVICE_MAP_ENTRIES:
        raise SpecError(f"--device-map: {len(mapping):,} entries; a model has far fewer modules ({MAX_DEVICE_MAP_ENTRIES:,} at most)")
    limit = n_gpu or MAX_GPUS
    for module, dev in mapping.items():
        if not isinstance(module, str) or isinstance(dev, bool) or not isinstance(dev, int):
            raise SpecError(f"--device-map: {_short(module)} -> {_short(dev)}: expected a module name and a GPU index")
        if not 0 <= dev < limit:
            given = f"{n_gpu} GPU{'s' if n_gpu != 1 else ''} given by --gpu-gib" if n_gpu else f"at most {MAX_GPUS} GPUs"
            raise SpecError(f"--device-map: {_short(module)} -> {dev}: no such GPU ({given}, numbered from 0)")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_device_map(text: str | None) -> Any:
    """``auto`` / ``None`` or a JSON object {module: gpu}; a JSON file path works too (read through kb plan's
    bounded reader). GPU indexes may be written ``1``, ``"1"`` or ``"cuda:1"``."""
    if text is None or text.strip().lower() in ("", "auto", "balanced"):
        return None
    try:
        if text.lstrip()[:1] in ("{", "["):
            mapping = load_json(text, "--device-map")
        else:
            mapping = load_json(read_bounded(text, f"--device-map file {_short(text)}"), f"--device-map file {_short(text)}")
    except InputFileError as exc:
        if "not found" in str(exc):
            raise SpecError(f"--device-map {_short(text)}: neither auto, a JSON object nor a readable file") from None
        raise SpecError(str(exc) if str(exc).startswith("--device-map") else f"--device-map: {exc}") from None
    if not isinstance(mapping, dict):
        raise SpecError("--device-map: expected a JSON object {module: gpu}")
    if len(mapping) > MAX_DEVICE_MAP_ENTRIES:
        raise SpecError(f"--device-map: {len(mapping):,} entries; a model has far fewer modules ({MAX_DEVICE_MAP_ENTRIES:,} at most)")
    out = {}
    for module, dev in mapping.items():
        if isinstance(dev, str) and pattern(r"(cuda:)?\d{1,4}").fullmatch(dev.strip()):
            dev = int(dev.strip().split(":")[-1])
        if isinstance(dev, bool) or not isinstance(dev, int):
            raise SpecError(f"--device-map: {_short(module)} -> {_short(dev)}: kb plan places modules on GPUs only (an index)")
        if not 0 <= dev < MAX_GPUS:
            raise SpecError(f"--device-map: {_short(module)} -> {_short(dev)}: a GPU index is 0 to {MAX_GPUS - 1}")
        out[str(module)] = dev
    return out


# TrainingArguments/SFTConfig (and common recipe) fields -> RunSpec fields.
FROM_KEYS = {
    "per_device_train_batch_size": "batch", "gradient_accumulation_steps": "grad_accum",
    "max_seq_length": "seq", "max_length": "seq", "sequence_len": "seq", "cutoff_len": "seq",
    "optim": "optim", "gradient_checkpointing": "grad_ckpt",
    "lora_r": "lora_r", "r": "lora_r", "lora_alpha": "lora_alpha", "lora_dropout": "lora_dropout",
    "target_modules": "target_modules", "lora_target_modules": "target_modules",
    "attn_implementation": "attn",
}


def _flag(value: Any, name: str) -> bool | None:
    """A true/false field of a settings file (None when unset)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise SpecError(f"--from: {name}: expected true or false, not {_short(value)}")


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or len(value) > 200:
        raise SpecError(f"--from: {name}: expected a name, not {_short(value)}")
    return value.strip()


def spec_from_settings(data: dict[str, Any], base: RunSpec | None = None) -> RunSpec:
    """A RunSpec from a TrainingArguments/SFTConfig mapping (also looked for one level down). Every field is
    checked (type, finite, bounds): SpecError names the one that is not usable.

    ``gradient_checkpointing: false`` (every TrainingArguments dump has it) leaves checkpointing to the
    library default: the Trainer does not turn off what prepare_model_for_kbit_training turned on."""
    if not isinstance(data, dict):
        raise SpecError("--from: expected a mapping of TrainingArguments fields")
    spec = base or RunSpec()
    flat: dict[str, Any] = {}
    for value in data.values():
        if isinstance(value, dict):
            for k2, v2 in value.items():
                if isinstance(k2, str):
                    flat.setdefault(k2, v2)
    flat.update({k: v for k, v in data.items() if isinstance(k, str) and not isinstance(v, dict)})
    raw: dict[str, tuple[str, Any]] = {}
    for key, field_name in FROM_KEYS.items():
        if key in flat and flat[key] is not None:
            raw.setdefault(field_name, (key, flat[key]))
    changes: dict[str, Any] = {}
    bounds = {"batch": (1, MAX_BATCH), "grad_accum": (1, MAX_GRAD_ACCUM), "seq": (1, MAX_SEQ), "lora_r": (0, MAX_LORA_R)}
    for name, (lo, hi) in bounds.items():
        if name in raw:
            key, value = raw[name]
            changes[name] = whole(value, f"--from: {key}", lo, hi, SpecError, text_ok=True)
    if "lora_alpha" in raw:
        key, value = raw["lora_alpha"]
        changes["lora_alpha"] = int_if_whole(real(value, f"--from: {key}", 0.0, MAX_LORA_ALPHA, SpecError, lo_open=True,
                                                  text_ok=True))
    if "lora_dropout" in raw:
        key, value = raw["lora_dropout"]
        changes["lora_dropout"] = real(value, f"--from: {key}", 0.0, 1.0, SpecError, hi_open=True, text_ok=True)
    if "grad_ckpt" in raw:
        on = _flag(raw["grad_ckpt"][1], raw["grad_ckpt"][0])
        kwargs = flat.get("gradient_checkpointing_kwargs") or {}
        reentrant = isinstance(kwargs, dict) and _flag(kwargs.get("use_reentrant"), "use_reentrant") is True
        if on:
            changes["grad_ckpt"] = "reentrant" if reentrant else "nonreentrant"
    if "target_modules" in raw:
        key, value = raw["target_modules"]
        if isinstance(value, list) and all(isinstance(v, str) for v in value) and 0 < len(value) <= 100:
            value = ",".join(value)
        if not isinstance(value, str) or not value.strip() or len(value) > 2000:
            raise SpecError(f"--from: {key}: expected a list of module names or all-linear, not {_short(value)}")
        changes["target_modules"] = value
    if "attn" in raw:
        changes["attn"] = _text(raw["attn"][1], raw["attn"][0])
    if _flag(flat.get("load_in_4bit"), "load_in_4bit"):
        changes["quant"] = _text(flat.get("bnb_4bit_quant_type") or "nf4", "bnb_4bit_quant_type").lower()
        changes["double_quant"] = _flag(flat.get("bnb_4bit_use_double_quant"), "bnb_4bit_use_double_quant") is True
    elif _flag(flat.get("load_in_8bit"), "load_in_8bit"):
        changes["quant"] = "int8"
    fp16, bf16 = _flag(flat.get("fp16"), "fp16"), _flag(flat.get("bf16"), "bf16")
    if fp16:
        changes["compute_dtype"] = "fp16"
    elif bf16:
        changes["compute_dtype"] = "bf16"
    elif fp16 is False and bf16 is False:
        changes["autocast"] = False  # neither set: the Trainer runs without autocast
    optim = _text(raw["optim"][1], raw["optim"][0]).lower() if "optim" in raw else spec.optim
    changes["optim"] = "adamw_torch" if optim == "adamw_hf" else optim
    out = spec.with_(**changes)
    out.check()
    return out
