"""Reading a user's training config file (JSON, or YAML with PyYAML) within bounds on size and nesting.

``kb plan --from`` and ``kb env --config`` both read configs through :func:`read_mapping`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kb.plan.files import MAX_DEPTH, MAX_FILE_BYTES, InputFileError, nesting, read_bounded

# A training config is a few KB; anything past these is not one (``--config /dev/zero`` once read
# until the kernel killed kb at 24 GB; a 100,000-deep nesting overflowed the parser's stack).
MAX_CONFIG_BYTES = MAX_FILE_BYTES
MAX_CONFIG_DEPTH = MAX_DEPTH


class ConfigError(ValueError):
    """A --config file that cannot be used; the message says why (exit code 2)."""


def read_mapping(path: str) -> tuple[dict[str, Any], str]:
    """A JSON or YAML config file as a mapping, and which of the two it was, read within MAX_CONFIG_BYTES
    and MAX_CONFIG_DEPTH (``kb env --config`` and ``kb plan --from`` both read configs through this).
    Raises :class:`ConfigError`."""
    if not path.strip():  # Path("") is the current folder: say what was given instead
        raise ConfigError("an empty path: give a JSON or YAML config file")
    file = Path(path)
    name = file.name
    text = _read_text(file, name)
    if _nesting(text) > MAX_CONFIG_DEPTH:
        raise ConfigError(f"{name} is nested more than {MAX_CONFIG_DEPTH} levels deep: not a training config")
    suffix = file.suffix.lower()
    try:
        if suffix in (".yaml", ".yml"):
            data, fmt = _load_yaml(text, name), "yaml"
        else:
            try:
                data, fmt = json.loads(text), "json"
            except json.JSONDecodeError as exc:
                if suffix == ".json":
                    raise ConfigError(
                        f"{name} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
                data, fmt = _load_yaml(text, name), "yaml"
    except (RecursionError, MemoryError):
        raise ConfigError(f"{name} is nested too deeply to read: not a training config") from None
    except ValueError as exc:  # ConfigError is one; else a number too long to convert (100,000 digits)
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"{name} holds a value kb cannot read ({str(exc)[:80]})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{name}: expected a mapping of TrainingArguments fields, found {type(data).__name__}")
    return data, fmt


def _read_text(file: Path, name: str) -> str:
    """The file's text through kb plan's one bounded reader (kb/plan/files.py): a regular file of at most
    MAX_CONFIG_BYTES (a device like /dev/zero never ends, and is refused before it is read)."""
    try:
        return read_bounded(str(file), f"config file {name!r}", MAX_CONFIG_BYTES)
    except InputFileError as exc:
        raise ConfigError(str(exc)) from None


def _nesting(text: str) -> int:
    """How deep brackets and braces nest in ``text`` outside double-quoted strings (kb/plan/files.py),
    checked before parsing so that a hostile file never reaches the parsers' recursion (RecursionError is
    caught as well, for what this misses)."""
    return nesting(text, MAX_CONFIG_DEPTH)


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


def read_settings(path: str) -> dict[str, Any]:
    """A TrainingArguments/SFTConfig file as a mapping (JSON; YAML when PyYAML is installed), read with
    kb env --config's limits on size and nesting."""
    try:
        return read_mapping(path)[0]
    except ConfigError as exc:
        from kb.plan.spec import SpecError

        raise SpecError(f"--from {exc}") from None
