"""The pin syntax of a reproduction's ``pins = ["transformers==4.51.3", ...]`` (installed by kb/reproduce/pinned.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from kb.knowledge.reproductions import Reproduction

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


UNPINNED = "the installed versions (unpinned)"  # the machine's, or in `kb verify` the stack's


def pins_text(rep: Reproduction, quote: str = "") -> str:
    """Which versions ``rep``'s programs run with, in words: the one wording of ``pins`` / ``fixed_pins`` that the
    case page, `kb show` and the version matrix (kb/reproduce/matrix.py) all print, so they cannot disagree.

    ``both programs run pinned to a==1, b==2``, or each program's own where the fixed program has ``fixed_pins``
    (its fix is other versions, an upgrade). ``quote`` wraps each pin and file name (a backtick for Markdown)."""
    def listed(pins: tuple[str, ...]) -> str:
        return ", ".join(f"{quote}{p}{quote}" for p in pins) if pins else UNPINNED

    if rep.fixed_pins is None:
        return f"both programs run pinned to {listed(rep.pins)}" if rep.pins else f"both programs run on {UNPINNED}"
    return (f"the failing program {quote}{rep.failing}{quote} runs on {listed(rep.pins)}; "
            f"the fixed program {quote}{rep.fixed}{quote} runs on {listed(rep.fixed_pins)}")
