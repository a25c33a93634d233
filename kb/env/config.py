"""`kb env --config`: the batch and precision settings of a training config file.

Reads a TrainingArguments/SFTConfig dump (``TrainingArguments.to_json_string()``,
a hand-written JSON/YAML) or an accelerate config; YAML needs PyYAML.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

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


class ConfigError(ValueError):
    """A --config file that cannot be used; the message says why (exit code 2)."""


def read_config(path: str) -> dict[str, Any]:
    """The batch and precision settings of a TrainingArguments/SFTConfig (or accelerate) file.

    JSON always; YAML when PyYAML is importable. Keys are looked for at the top
    level and one level down (``{"training_args": {...}}``). Raises :class:`ConfigError`.
    """
    file = Path(path)
    name = file.name
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {name!r} not found") from None
    except IsADirectoryError:
        raise ConfigError(f"config {name!r} is a directory, not a file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"config file {name!r} is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {name!r}: {exc.strerror}") from None
    suffix = file.suffix.lower()
    if suffix in (".yaml", ".yml"):
        data, fmt = _load_yaml(text, name), "yaml"
    else:
        try:
            data, fmt = json.loads(text), "json"
        except json.JSONDecodeError as exc:
            if suffix == ".json":
                raise ConfigError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
            data, fmt = _load_yaml(text, name), "yaml"
    if not isinstance(data, dict):
        raise ConfigError(f"{name}: expected a mapping of TrainingArguments fields, found {type(data).__name__}")
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
                settings[key] = mik[key]
    return {"file": name, "format": fmt, "settings": settings}


def _pick(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: data[k] for k in CONFIG_KEYS if k in data and isinstance(data[k], (str, int, float, bool, type(None)))}


def _load_yaml(text: str, name: str) -> Any:
    try:
        import yaml
    except ImportError:
        raise ConfigError(f"{name}: reading YAML needs PyYAML (pip install pyyaml); or pass the config as JSON") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1}" if where is not None else ""
        raise ConfigError(f"{name} is neither JSON nor valid YAML{at}") from None


def truthy(value: Any) -> bool:
    """``True``, ``"true"``, ``1`` mean on; ``"auto"`` (axolotl) is not a request."""
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "on")
    return value is True or (isinstance(value, int) and value == 1)
