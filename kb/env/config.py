"""`kb env --config`: the batch and precision settings of a training config file.

Reads a TrainingArguments/SFTConfig dump (``TrainingArguments.to_json_string()``,
a hand-written JSON/YAML) or an accelerate config; YAML needs PyYAML.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kb.plan.settings_file import MAX_CONFIG_BYTES, MAX_CONFIG_DEPTH, ConfigError, read_mapping  # noqa: F401

CONFIG_KEYS = (
    "per_device_train_batch_size",
    "per_gpu_train_batch_size",
    "gradient_accumulation_steps",
    "bf16",
    "fp16",
    "tf32",
    "torch_dtype",
    "dtype",
    "mixed_precision",
    "num_processes",
    "num_machines",
)


def read_config(path: str) -> dict[str, Any]:
    """The batch and precision settings of a TrainingArguments/SFTConfig (or accelerate) file.

    JSON always; YAML when PyYAML is importable. Keys are looked for at the top
    level and one level down (``{"training_args": {...}}``). Raises :class:`ConfigError`.
    """
    data, fmt = read_mapping(path)
    return config_of(path, data, fmt)


def config_of(path: str, data: dict[str, Any], fmt: str) -> dict[str, Any]:
    """:func:`read_config`'s answer for a mapping already read (kb env keeps the mapping for its memory plan:
    review50b, a pipe given as --config cannot be read twice)."""
    settings = _pick(data)
    if not settings:
        for value in data.values():
            if isinstance(value, dict) and _pick(value):
                settings = _pick(value)
                break
    mik = data.get("model_init_kwargs")
    if isinstance(mik, dict):
        for key in ("torch_dtype", "dtype"):
            if key in mik and key not in settings:
                settings[key] = _scalar(mik[key])
    return {"file": Path(path).name, "format": fmt, "settings": settings}


def _scalar(value: Any) -> Any:
    """A config value as printed: NaN and infinities become strings, so the JSON report stays strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _pick(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _scalar(data[k]) for k in CONFIG_KEYS
            if k in data and isinstance(data[k], (str, int, float, bool, type(None)))}


def truthy(value: Any) -> bool:
    """``True``, ``"true"``, ``1`` mean on; ``"auto"`` (axolotl) is not a request."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "on")
    return value is True or (isinstance(value, int) and value == 1)
