"""A case's reproductions (kb/knowledge/model.py ``Case.reproductions``): each failing program and its fix, what each
run must show (``Expectation``, its ``Measure`` bounds), and the installed-version ranges that have the failure
(``Case.affected``). Read by `kb reproduce`, `kb check`, the site and the tests; never by `kb diagnose`, which imports
the model only (this module's classes were ~0.05-0.08 ms of its start-up).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import re
    from typing import Any


class Measure:
    """A bound on a number the program prints as ``kb-measure NAME=VALUE``."""

    __slots__ = ("name", "min", "max")

    def __init__(self, name: str, min: float | None = None, max: float | None = None) -> None:  # noqa: A002
        self.name, self.min, self.max = name, min, max

    def check(self, value: float) -> bool:
        if self.min is not None and value < self.min:
            return False
        return not (self.max is not None and value > self.max)

    def describe(self) -> str:
        parts = []
        if self.min is not None:
            parts.append(f">= {self.min:g}")
        if self.max is not None:
            parts.append(f"<= {self.max:g}")
        return f"{self.name} " + " and ".join(parts)


class Expectation:
    """What one program run must show (kb/knowledge/schema.py EXPECTATION).

    A failing program either raises (``signature`` + ``raised_in`` regexes on the innermost frame)
    or, for a silent failure, meets ``measures``; a fixed program exits 0 and meets its measures.
    """

    __slots__ = ("signature", "raised_in", "measures", "warnings")

    def __init__(self, raw: dict[str, Any]) -> None:
        import re

        self.signature: str | None = raw["signature"]
        self.raised_in: dict[str, re.Pattern[str]] = {
            k: re.compile(v) for k, v in raw["raised_in"].items() if v is not None
        } if raw["raised_in"] else {}
        self.measures = tuple(Measure(m["name"], m["min"], m["max"]) for m in raw["measures"])
        self.warnings = tuple(re.compile(w) for w in raw["warnings"])


class Reproduction:
    """A failing program and its fix, run on one or more hardware profiles."""

    __slots__ = ("name", "hardware", "failing", "fixed", "failing_expect", "fixed_expect", "launcher", "fresh_python", "nproc",
                 "timeout", "requires", "env", "description", "fixed_nproc", "fixed_env", "pins", "fixed_pins",
                 "requires_versions")

    def __init__(self, raw: dict[str, Any]) -> None:
        self.name: str = raw["name"]
        self.hardware: tuple[str, ...] = tuple(raw["hardware"])
        self.failing: str = raw["failing"]
        self.fixed: str = raw["fixed"]
        self.failing_expect = Expectation(raw["failing_expect"])
        self.fixed_expect = Expectation(raw["fixed_expect"])
        self.fresh_python: bool = bool(raw["fresh_python"])
        self.launcher: str = raw["launcher"] or "python"
        self.nproc: int = raw["nproc"]
        self.timeout: int = raw["timeout"]
        self.requires: tuple[str, ...] = tuple(raw["requires"])
        self.env: dict[str, str] = dict(raw["env"])
        self.description: str = raw["description"]
        self.fixed_nproc: int | None = raw["fixed_nproc"]
        self.fixed_env: dict[str, str] = dict(raw["fixed_env"])
        self.pins: tuple[str, ...] = tuple(p.strip() for p in raw["pins"])
        fixed_pins = raw.get("fixed_pins")
        self.fixed_pins: tuple[str, ...] | None = None if fixed_pins is None else tuple(p.strip() for p in fixed_pins)
        self.requires_versions: dict[str, str] = dict(raw.get("requires_versions") or {})


    def pins_for(self, program: str) -> tuple[str, ...]:
        """The pins ``program`` (``failing`` or ``fixed``) runs with: the fixed program's own ``fixed_pins``
        where the case gives them (its fix is other versions), else the reproduction's ``pins``."""
        if program == "fixed" and self.fixed_pins is not None:
            return self.fixed_pins
        return self.pins

    @property
    def pinned(self) -> bool:
        """Whether either program runs on pinned versions rather than the machine's."""
        return bool(self.pins or self.fixed_pins)


class AffectedRange:
    """An installed-version range that has this case's failure (``[versions] affected``)."""

    __slots__ = ("package", "spec", "note")

    def __init__(self, package: str, spec: str, note: str = "") -> None:
        self.package, self.spec, self.note = package, spec, note
