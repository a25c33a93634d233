"""Checks on every number kb plan is given (options, --from fields, config.json fields, device maps).

Each value must be of the right type (a whole number is not ``true``, ``2.5`` or ``"4"`` where JSON gives a
number), finite, and within physical bounds: the bounds are generous for any model or GPU that exists, and
tight enough that the arithmetic stays small (10,000,000 layers or 10^300 tokens are refused, not planned).
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

# Physical bounds (inclusive). The largest public models have ~130 layers, a 256k vocabulary, hidden size
# 16,384; the largest GPU ~200 GiB; a host 8-16 GPUs.
MAX_LAYERS = 2048
MAX_VOCAB = 4_000_000
MAX_HIDDEN = 262_144
MAX_INTERMEDIATE = 4 * 262_144
MAX_HEADS = 65_536
MAX_HEAD_DIM = 65_536
MAX_BATCH = 1_000_000
MAX_SEQ = 100_000_000
MAX_TOKENS = 1_000_000_000  # batch x seq of one micro-batch
MAX_GRAD_ACCUM = 1_000_000
MAX_LORA_R = 65_536
MAX_LORA_ALPHA = 1_000_000.0
MIN_GPU_GIB = 0.125  # (turn 48) 128 MiB: no GPU is smaller; 1e-300 GiB was planned as a card
MAX_GPU_GIB = 4096.0
MAX_GPUS = 64
MAX_CONTEXT_GIB = 64.0
MAX_DEVICE_MAP_ENTRIES = 100_000


def whole(value: Any, name: str, lo: int, hi: int, error: type[ValueError], *, text_ok: bool = False) -> int:
    """``value`` as an int in [lo, hi]: an int, or a float that is whole (``4.0``), or with ``text_ok`` a
    string of digits (YAML and hand-written configs quote numbers). ``True`` is not a number here."""
    if isinstance(value, bool):
        raise error(f"{name}: {value!r} is not a whole number")
    if isinstance(value, str) and text_ok and len(value) <= 30:
        try:
            value = float(value.strip()) if any(c in value for c in ".eE") else int(value.strip())
        except ValueError:
            raise error(f"{name}: {value!r} is not a whole number") from None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise error(f"{name}: {value!r} is not a whole number")
        if not lo <= value <= hi:
            raise error(f"{name} must be between {lo:,} and {hi:,}, not {value:g}")
        value = int(value)
    if not isinstance(value, int):
        raise error(f"{name}: {_show(value)} is not a whole number")
    if not lo <= value <= hi:
        raise error(f"{name} must be between {lo:,} and {hi:,}, not {_big(value)}")
    return value


def real(value: Any, name: str, lo: float, hi: float, error: type[ValueError], *, lo_open: bool = False,
         hi_open: bool = False, text_ok: bool = False) -> float:
    """``value`` as a finite float within [lo, hi] (an open end excludes the bound)."""
    if isinstance(value, bool):
        raise error(f"{name}: {value!r} is not a number")
    if isinstance(value, str) and text_ok and len(value) <= 40:
        try:
            value = float(value.strip())
        except ValueError:
            raise error(f"{name}: {value!r} is not a number") from None
    if not isinstance(value, (int, float)):
        raise error(f"{name}: {_show(value)} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise error(f"{name} must be between {lo:g} and {hi:g}, not {_big(value)}") from None
    if not math.isfinite(number):
        raise error(f"{name} must be a finite number, not {number}")
    if number < lo or number > hi or (lo_open and number == lo) or (hi_open and number == hi):
        lower = "more than" if lo_open else "at least"
        upper = "less than" if hi_open else "at most"
        raise error(f"{name} must be {lower} {lo:g} and {upper} {hi:g}, not {number:g}")
    return number


def int_if_whole(value: float) -> float | int:
    """``32.0`` as ``32`` (a LoRA alpha reads as the user wrote it), other numbers as they are."""
    return int(value) if float(value).is_integer() else value


def _big(value: int) -> str:
    """The number, or its size when it is too long to print (str() refuses past 4,300 digits)."""
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    return str(value)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"a {type(value).__name__}"
