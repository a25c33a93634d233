"""The pin syntax of a reproduction's ``pins = ["transformers==4.51.3", ...]`` (installed by kb/reproduce/pinned.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

PIN_PATTERN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9][A-Za-z0-9.+!_-]*)$")


class PinError(ValueError):
    """A pin that is not ``name==version``, or a pinned environment that could not be built."""


@dataclass(frozen=True)
class Pin:
    name: str  # canonical distribution name (PEP 503: lower case, runs of -_. become -)
    version: str

    def __str__(self) -> str:
        return f"{self.name}=={self.version}"


def canonical_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_pin(text: str) -> Pin:
    """``"Transformers==4.51.3"`` -> ``Pin("transformers", "4.51.3")``; only exact pins are allowed."""
    m = PIN_PATTERN.match(text.strip())
    if not m:
        raise PinError(f"pin {text!r} is not an exact 'name==version'")
    return Pin(canonical_name(m["name"]), m["version"])


def parse_pins(texts: list[str] | tuple[str, ...]) -> tuple[Pin, ...]:
    pins = tuple(parse_pin(t) for t in texts)
    names = [p.name for p in pins]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise PinError(f"pinned more than once: {', '.join(duplicates)}")
    return pins
