"""What is run: quantization, LoRA, batch, checkpointing, optimizer, placement (`kb plan`'s options).

A :class:`RunSpec` is built from the command line, from a TrainingArguments/SFTConfig file (``--from``), or
from `kb env --config`'s settings. Placement is a list of GPU sizes and a device map: ``auto`` (layers spread
over the GPUs, embedding on the first, head on the last) or an explicit ``{module: gpu}`` mapping as given to
``from_pretrained(device_map=...)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

QUANTS = ("none", "int8", "nf4", "fp4")
DTYPES = ("bf16", "fp16", "fp32")
CKPT = ("off", "nonreentrant", "reentrant")
ATTN = ("sdpa", "eager", "flash_attention_2")
OPTIMIZERS = ("adamw_torch", "adamw_torch_fused", "adamw_8bit", "adamw_bnb_8bit", "paged_adamw_8bit",
              "paged_adamw_32bit", "adafactor", "sgd")


class SpecError(ValueError):
    """An option value kb plan cannot use; the message says which and why."""


@dataclass(frozen=True)
class RunSpec:
    quant: str = "none"
    double_quant: bool = True
    compute_dtype: str = "bf16"
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    target_modules: str = "all-linear"
    batch: int = 1
    seq: int = 1024
    grad_ckpt: str = "off"
    optim: str = "adamw_torch"
    grad_accum: int = 1
    kbit_prep: bool | None = None  # None: on for int8/nf4/fp4, as in the usual QLoRA recipe
    attn: str = "sdpa"
    autocast: bool = True  # the Trainer autocasts when bf16/fp16 is set; a hand-written loop may not
    gpu_gib: tuple[float, ...] = ()
    device_map: Any = None  # None/"auto" or {module: gpu index}
    context_gib: float | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

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
        return replace(self, **changes)

    def check(self) -> None:
        for name, value, allowed in (("--quant", self.quant, QUANTS), ("--compute-dtype", self.compute_dtype, DTYPES),
                                     ("--grad-ckpt", self.grad_ckpt, CKPT), ("--attn", self.attn, ATTN),
                                     ("--optim", self.optim, OPTIMIZERS)):
            if value not in allowed:
                raise SpecError(f"{name} {value!r}: expected one of {', '.join(allowed)}")
        for name, value in (("--batch", self.batch), ("--seq", self.seq), ("--grad-accum", self.grad_accum)):
            if value < 1:
                raise SpecError(f"{name} must be at least 1, not {value}")
        if self.lora_r < 0:
            raise SpecError(f"--lora-r must be 0 (full fine-tuning) or more, not {self.lora_r}")
        if any(g <= 0 for g in self.gpu_gib):
            raise SpecError("--gpu-gib must be positive")


def parse_device_map(text: str | None) -> Any:
    """``auto`` / ``None`` or a JSON object {module: gpu}; a JSON file path works too."""
    if text is None or text.strip().lower() in ("", "auto", "balanced"):
        return None
    raw = text
    if not text.lstrip().startswith("{"):
        try:
            with open(text, encoding="utf-8") as f:
                raw = f.read()
        except OSError as exc:
            raise SpecError(f"--device-map {text!r}: neither auto, a JSON object nor a readable file ({exc.strerror})") from None
    try:
        mapping = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SpecError(f"--device-map: not valid JSON ({exc.msg})") from None
    if not isinstance(mapping, dict):
        raise SpecError("--device-map: expected a JSON object {module: gpu}")
    out = {}
    for module, dev in mapping.items():
        if isinstance(dev, str) and re.fullmatch(r"(cuda:)?\d+", dev):
            dev = int(dev.split(":")[-1])
        if not isinstance(dev, int):
            raise SpecError(f"--device-map: {module!r} -> {dev!r}: kb plan places modules on GPUs only (an index)")
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


def spec_from_settings(data: dict[str, Any], base: RunSpec | None = None) -> RunSpec:
    """A RunSpec from a TrainingArguments/SFTConfig mapping (also looked for one level down)."""
    spec = base or RunSpec()
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            for k2, v2 in value.items():
                flat.setdefault(k2, v2)
    flat.update({k: v for k, v in data.items() if not isinstance(v, dict)})
    changes: dict[str, Any] = {}
    for key, field_name in FROM_KEYS.items():
        if key in flat and flat[key] is not None:
            changes[field_name] = flat[key]
    if "grad_ckpt" in changes:
        on = changes["grad_ckpt"] in (True, "true", "True", 1)
        kwargs = flat.get("gradient_checkpointing_kwargs") or {}
        reentrant = isinstance(kwargs, dict) and kwargs.get("use_reentrant") in (True, "true")
        changes["grad_ckpt"] = ("reentrant" if reentrant else "nonreentrant") if on else "off"
    if isinstance(changes.get("target_modules"), list):
        changes["target_modules"] = ",".join(map(str, changes["target_modules"]))
    if flat.get("load_in_4bit") in (True, "true"):
        changes["quant"] = str(flat.get("bnb_4bit_quant_type", "nf4"))
        changes["double_quant"] = flat.get("bnb_4bit_use_double_quant") in (True, "true")
    elif flat.get("load_in_8bit") in (True, "true"):
        changes["quant"] = "int8"
    if flat.get("fp16") in (True, "true"):
        changes["compute_dtype"] = "fp16"
    elif flat.get("bf16") in (True, "true"):
        changes["compute_dtype"] = "bf16"
    elif flat.get("fp16") in (False, "false") and flat.get("bf16") in (False, "false"):
        changes["autocast"] = False  # neither set: the Trainer runs without autocast
    for name in ("batch", "grad_accum", "seq", "lora_r", "lora_alpha"):
        if name in changes:
            try:
                changes[name] = int(changes[name])
            except (TypeError, ValueError):
                raise SpecError(f"{name}: {changes[name]!r} is not a whole number") from None
    if "lora_dropout" in changes:
        changes["lora_dropout"] = float(changes["lora_dropout"])
    optim = str(changes.get("optim", spec.optim)).lower()
    changes["optim"] = "adamw_torch" if optim == "adamw_hf" else optim
    return spec.with_(**changes)
