"""The case model: one folder under ``cases/`` holding ``case.md`` and its programs.

``case.md`` is TOML front matter between ``+++`` lines (metadata, signatures,
reproductions) followed by Markdown prose under fixed ``##`` headings. Loading it
needs only the standard library: no torch, no case code is imported.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.diagnose.match import COMPARE_OPS

CASE_FILE = "case.md"
ID_PATTERN = re.compile(r"^KB\d{4}$")
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
STATUSES = ("active", "retired", "unreproduced", "fixed-upstream")

# Headings every case.md body must carry, in this order (the docs page and
# `kb explain` render them under these names).
REQUIRED_SECTIONS = (
    "Symptom",
    "Why it happens",
    "Fix",
    "What did not work",
    "When this does not apply",
)


class CaseError(ValueError):
    """A case folder that cannot be loaded; the message names the file and the problem."""


@dataclass(frozen=True)
class Signature:
    """How an error text is recognised as this case.

    ``message`` is a regular expression searched in the exception message; its
    named groups become captures (devices, sizes, dtypes) that fill the fix.
    ``exception`` names accepted exception types by their last dotted component
    (``OutOfMemoryError`` matches ``torch.OutOfMemoryError`` and
    ``torch.cuda.OutOfMemoryError``). ``frames`` are regexes that add confidence
    when a traceback frame (file, function or code line) matches.
    """

    name: str
    exceptions: tuple[str, ...]
    message: re.Pattern[str]
    frames: tuple[re.Pattern[str], ...] = ()
    requires_frame: bool = False  # the message alone is too generic (an OOM): a frame hint must match too
    # Optional, for `kb diagnose`: regexes searched in the lines just before the error and in the
    # frames' code (``hints``), and regexes on environment facts it infers from the log, keyed by
    # fact (``environment = { gpu = "T4" }``; facts: gpu, gpu_memory_gib, world_size).
    hints: tuple[re.Pattern[str], ...] = ()
    environment: tuple[tuple[str, re.Pattern[str]], ...] = ()
    # Comparisons between captures that must hold, e.g. ``compare = [["unallocated", ">=", "requested"]]``
    # (sizes like "10.00 GiB" compare by bytes): for facts a regex cannot state.
    compare: tuple[tuple[str, str, str], ...] = ()
    requires_type: bool = False  # the message is generic (an HTTP 401): only the listed exception types count
    # Regexes that rule the case out when a frame or a nearby line matches: the same message from a
    # cause the case's "When this does not apply" names (position embeddings for an index error).
    excludes: tuple[re.Pattern[str], ...] = ()

    def accepts_type(self, exception_type: str) -> bool:
        short = exception_type.rsplit(".", 1)[-1]
        return any(short == e.rsplit(".", 1)[-1] for e in self.exceptions)

    def may_match(self, text: str) -> bool:
        """A cheap pre-check before the regex (see kb.knowledge.index); always True here."""
        return True


@dataclass(frozen=True)
class Measure:
    """A bound on a number the program prints as ``kb-measure NAME=VALUE``."""

    name: str
    min: float | None = None
    max: float | None = None

    def check(self, value: float) -> bool:
        if self.min is not None and value < self.min:
            return False
        if self.max is not None and value > self.max:
            return False
        return True

    def describe(self) -> str:
        parts = []
        if self.min is not None:
            parts.append(f">= {self.min:g}")
        if self.max is not None:
            parts.append(f"<= {self.max:g}")
        return f"{self.name} " + " and ".join(parts)


@dataclass(frozen=True)
class Expectation:
    """What one program run must show.

    For a failing program: either an exception (``signature`` + ``raised_in``:
    regexes on the innermost traceback frame's ``file``, ``function`` and
    ``code``) or, for a silent failure, ``measures`` only. For a fixed program:
    a clean exit plus any ``measures``.
    """

    signature: str | None = None
    raised_in: dict[str, re.Pattern[str]] = field(default_factory=dict)
    measures: tuple[Measure, ...] = ()
    warnings: tuple[re.Pattern[str], ...] = ()


@dataclass(frozen=True)
class Reproduction:
    """A failing program and its fix, run on one or more hardware profiles."""

    name: str
    hardware: tuple[str, ...]
    failing: str
    fixed: str
    failing_expect: Expectation
    fixed_expect: Expectation
    launcher: str = "python"
    nproc: int = 1
    timeout: int = 300
    requires: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    description: str = ""
    # The fixed program may run under another process count or environment (processes = GPUs, say).
    fixed_nproc: int | None = None
    fixed_env: dict[str, str] = field(default_factory=dict)
    # Exact library versions this reproduction runs on ("transformers==4.51.3"), installed
    # offline from a wheelhouse by kb.reproduce.pinned; empty = whatever the machine has.
    pins: tuple[str, ...] = ()


@dataclass(frozen=True)
class AffectedRange:
    """An installed-version range that has this case's failure (``[versions] affected``)."""

    package: str  # a distribution name (``transformers``), or ``python`` / ``nccl``
    spec: str  # PEP 440 subset, see kb/knowledge/versions.py: ">=4.51,<4.57"
    note: str = ""


def _affected(versions: dict[str, Any], where: str) -> tuple[AffectedRange, ...]:
    from kb.knowledge.versions import InvalidSpecifier, validate_spec

    raw = versions.get("affected", [])
    if not isinstance(raw, list):
        raise CaseError(f"{where}: versions.affected must be a list of {{package, spec}} tables")
    ranges = []
    for i, item in enumerate(raw):
        aw = f"{where}: versions.affected[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("package"), str) or not isinstance(item.get("spec"), str):
            raise CaseError(f"{aw}: needs package and spec strings, e.g. {{package = \"transformers\", spec = \">=4.51,<4.57\"}}")
        try:
            validate_spec(item["spec"])
        except InvalidSpecifier as exc:
            raise CaseError(f"{aw}: {exc}") from None
        ranges.append(AffectedRange(item["package"], item["spec"], str(item.get("note", ""))))
    return tuple(ranges)


@dataclass(frozen=True)
class Case:
    id: str
    slug: str
    title: str
    status: str
    path: Path
    summary: str
    libraries: tuple[str, ...]
    hardware: tuple[str, ...]
    setting: str
    versions: dict[str, Any]
    sources: tuple[dict[str, str], ...]
    signatures: tuple[Signature, ...]
    fix_template: str
    reproductions: tuple[Reproduction, ...]
    sections: dict[str, str]
    meta: dict[str, Any]
    affected: tuple[AffectedRange, ...] = ()  # [versions] affected: read by `kb env`

    @property
    def folder_name(self) -> str:
        return self.path.name

    def signature(self, name: str) -> Signature:
        for sig in self.signatures:
            if sig.name == name:
                return sig
        raise KeyError(name)

    def reproduction(self, name: str) -> Reproduction:
        for rep in self.reproductions:
            if rep.name == name:
                return rep
        raise KeyError(name)

    def program_source(self, filename: str) -> str:
        return (self.path / filename).read_text(encoding="utf-8")


def split_front_matter(text: str, where: str) -> tuple[str, str]:
    """Return (toml, markdown) from a ``+++``-delimited document."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "+++":
        raise CaseError(f"{where}: must start with a '+++' line (TOML front matter)")
    for i in range(1, len(lines)):
        if lines[i].strip() == "+++":
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    raise CaseError(f"{where}: front matter is not closed by a '+++' line")


def parse_sections(markdown: str) -> dict[str, str]:
    """Split Markdown prose into ``{heading: body}`` on level-2 headings."""
    sections: dict[str, str] = {}
    current: str | None = None
    body: list[str] = []
    in_fence = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("## "):
            if current is not None:
                sections[current] = "\n".join(body).strip()
            current = line[3:].strip()
            body = []
        elif current is not None:
            body.append(line)
    if current is not None:
        sections[current] = "\n".join(body).strip()
    return sections


def _is_size(text: str) -> bool:
    return re.fullmatch(r"\s*\d+(?:\.\d+)?\s*[KMGT]i?B\s*", text) is not None


def _compare_rules(raw: dict[str, Any], where: str) -> tuple[tuple[str, str, str], ...]:
    """``compare`` entries, checked: an operator kb.diagnose.match applies, and operands that are the message's
    named groups, literal sizes (``"11 GiB"``) or ``a-b`` of two, so that a typo cannot silently make
    a signature never match."""
    groups = set(re.compile(raw.get("message", "")).groupindex) if isinstance(raw.get("message"), str) else set()
    rules = []
    for rule in raw.get("compare", []):
        if not (isinstance(rule, list) and len(rule) == 3):
            raise CaseError(f"{where}.compare: each entry is [left, op, right], got {rule!r}")
        left, op, right = (str(x) for x in rule)
        if op not in COMPARE_OPS:
            raise CaseError(f"{where}.compare: unknown operator {op!r}")
        for operand in (left, right):
            unknown = [name for name in operand.split("-") if name.strip() not in groups and not _is_size(name)]
            if unknown:
                raise CaseError(f"{where}.compare: {operand!r} names no capture of the message regex ({', '.join(unknown)})")
        rules.append((left, op, right))
    return tuple(rules)


def _compile(pattern: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise CaseError(f"{where}: bad regular expression {pattern!r}: {exc}") from None


def _expectation(raw: dict[str, Any], where: str) -> Expectation:
    raised_in = {
        key: _compile(value, f"{where}.raised_in.{key}")
        for key, value in raw.get("raised_in", {}).items()
    }
    unknown = set(raised_in) - {"file", "function", "code"}
    if unknown:
        raise CaseError(f"{where}.raised_in: unknown keys {sorted(unknown)}")
    measures = tuple(
        Measure(name=m["name"], min=m.get("min"), max=m.get("max")) for m in raw.get("measures", [])
    )
    warnings = tuple(_compile(w, f"{where}.warnings") for w in raw.get("warnings", []))
    return Expectation(
        signature=raw.get("signature"), raised_in=raised_in, measures=measures, warnings=warnings
    )


def _pins(raw: Any, where: str) -> tuple[str, ...]:
    from kb.reproduce.pinned import PinError, parse_pins

    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise CaseError(f"{where}: must be a list of 'name==version' strings")
    try:
        parse_pins(raw)
    except PinError as exc:
        raise CaseError(f"{where}: {exc}") from None
    return tuple(p.strip() for p in raw)


def _require(meta: dict[str, Any], key: str, where: str) -> Any:
    if key not in meta:
        raise CaseError(f"{where}: front matter lacks '{key}'")
    return meta[key]


def load_case(folder: Path) -> Case:
    """Load one case folder; raises :class:`CaseError` with the file named."""
    case_file = folder / CASE_FILE
    where = str(case_file)
    try:
        text = case_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise CaseError(f"{where}: cannot read: {exc.strerror}") from None
    front, prose = split_front_matter(text, where)
    try:
        meta = tomllib.loads(front)
    except tomllib.TOMLDecodeError as exc:
        raise CaseError(f"{where}: front matter is not valid TOML: {exc}") from None

    signatures = []
    for i, raw in enumerate(meta.get("signatures", [])):
        sw = f"{where}: signatures[{i}]"
        exceptions = raw.get("exception", [])
        if isinstance(exceptions, str):
            exceptions = [exceptions]
        signatures.append(
            Signature(
                name=_require(raw, "name", sw),
                exceptions=tuple(exceptions),
                message=_compile(_require(raw, "message", sw), f"{sw}.message"),
                frames=tuple(_compile(f, f"{sw}.frames") for f in raw.get("frames", [])),
                requires_frame=bool(raw.get("requires_frame", False)),
                compare=_compare_rules(raw, sw),
                requires_type=bool(raw.get("requires_type", False)),
                hints=tuple(_compile(h, f"{sw}.hints") for h in raw.get("hints", [])),
                excludes=tuple(_compile(x, f"{sw}.excludes") for x in raw.get("excludes", [])),
                environment=tuple(
                    (str(k), _compile(str(v), f"{sw}.environment.{k}")) for k, v in raw.get("environment", {}).items()
                ),
            )
        )

    reproductions = []
    for i, raw in enumerate(meta.get("reproductions", [])):
        rw = f"{where}: reproductions[{i}]"
        hardware = raw.get("hardware", meta.get("hardware", []))
        if isinstance(hardware, str):
            hardware = [hardware]
        reproductions.append(
            Reproduction(
                name=_require(raw, "name", rw),
                hardware=tuple(hardware),
                failing=_require(raw, "failing", rw),
                fixed=_require(raw, "fixed", rw),
                failing_expect=_expectation(raw.get("failing_expect", {}), f"{rw}.failing_expect"),
                fixed_expect=_expectation(raw.get("fixed_expect", {}), f"{rw}.fixed_expect"),
                launcher=raw.get("launcher", meta.get("launcher", "python")),
                nproc=int(raw.get("nproc", 1)),
                timeout=int(raw.get("timeout", 300)),
                requires=tuple(raw.get("requires", [])),
                env={str(k): str(v) for k, v in raw.get("env", {}).items()},
                description=raw.get("description", ""),
                fixed_nproc=int(raw["fixed_nproc"]) if "fixed_nproc" in raw else None,
                fixed_env={str(k): str(v) for k, v in raw.get("fixed_env", {}).items()},
                pins=_pins(raw.get("pins", meta.get("pins", [])), f"{rw}.pins"),
            )
        )

    hardware = meta.get("hardware", [])
    if isinstance(hardware, str):
        hardware = [hardware]
    if not hardware:
        hardware = sorted({h for r in reproductions for h in r.hardware})

    return Case(
        id=_require(meta, "id", where),
        slug=_require(meta, "slug", where),
        title=_require(meta, "title", where),
        status=meta.get("status", "active"),
        path=folder,
        summary=meta.get("summary", ""),
        libraries=tuple(meta.get("libraries", [])),
        hardware=tuple(hardware),
        setting=meta.get("setting", ""),
        versions=dict(meta.get("versions", {})),
        sources=tuple(meta.get("sources", [])),
        signatures=tuple(signatures),
        fix_template=meta.get("fix", {}).get("template", ""),
        reproductions=tuple(reproductions),
        sections=parse_sections(prose),
        meta=meta,
        affected=_affected(dict(meta.get("versions", {})), where),
    )
