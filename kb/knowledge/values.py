"""Immutable values without the dataclasses module: the planner's (a run's settings, a model's shape, a linear layer,
a trainer's run) and drift/'s entries (kb/knowledge/drift_entry.py).

`kb diagnose` asks the planner about an out-of-memory log that names its model (kb/diagnose/oomplan.py), and
``import dataclasses`` imports inspect, and with it ast, dis, tokenize, enum, re and functools: ~13 ms of CPU, a
third of such a run (turn 48, issue 26). A subclass of Frozen declares its fields as the dataclass did, annotated
names in order, with a default after those that have one (immutable values only); it is built, compared, hashed,
printed and copied with changes as that ``@dataclass(frozen=True)`` was: keyword or positional arguments, equal when
of the same class with equal fields, hashed by its fields, ``Name(field=value, ...)``, and no attribute set once
built (AttributeError, as dataclasses' FrozenInstanceError is one). A field named in the class's ``HIDDEN`` (not
annotated) is left out of equality, the hash and the text, as a dataclass's ``field(compare=False, repr=False)``.
An API-history answer of `kb diagnose` reads drift/'s verified entries (turn 49: dataclasses, with pathlib and re,
was ~13-20 ms of such a run). Here, at the bottom layer, so that the knowledge's readers and the planner share it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any


class Frozen:
    """An immutable value of ``FIELDS`` (see the module's docstring)."""

    FIELDS: tuple[str, ...] = ()  # (set for each subclass from its annotations)
    DEFAULTS: dict[str, Any] = {}
    HIDDEN: tuple[str, ...] = ()  # fields not compared, hashed or printed (set by a subclass, not annotated there)
    COMPARED: tuple[str, ...] = ()  # (FIELDS less HIDDEN)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__annotations__", {})
        cls.FIELDS = (*cls.FIELDS, *(f for f in own if f not in cls.FIELDS))
        cls.DEFAULTS = {**cls.DEFAULTS, **{f: cls.__dict__[f] for f in own if f in cls.__dict__}}
        cls.COMPARED = tuple(f for f in cls.FIELDS if f not in cls.HIDDEN)
        for field, default in cls.DEFAULTS.items():
            if isinstance(default, (list, dict, set)):
                raise ValueError(f"{cls.__name__}.{field}: a mutable default would be shared by every value")

    def __init__(self, *args: Any, **values: Any) -> None:
        name = type(self).__name__
        if len(args) > len(self.FIELDS):
            raise TypeError(f"{name}() takes {len(self.FIELDS)} arguments but {len(args)} were given")
        for field, value in zip(self.FIELDS, args):
            if field in values:
                raise TypeError(f"{name}() got multiple values for argument {field!r}")
            values[field] = value
        for field in self.FIELDS:
            if field in values:
                value = values.pop(field)
            elif field in self.DEFAULTS:
                value = self.DEFAULTS[field]
            else:
                raise TypeError(f"{name}() missing required argument: {field!r}")
            object.__setattr__(self, field, value)
        if values:
            raise TypeError(f"{name}() got an unexpected keyword argument {next(iter(values))!r}")

    def values(self) -> tuple[Any, ...]:
        """The fields' values, in order."""
        return tuple(getattr(self, field) for field in self.FIELDS)

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` (dataclasses.replace)."""
        return type(self)(**{**dict(zip(self.FIELDS, self.values())), **changes})

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._compared())

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, field) for field in self.COMPARED)

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self.COMPARED) + ")"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")
