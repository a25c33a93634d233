"""The knowledge model: cases, families and their parts, built from normalised dicts.

One set of classes serves every reader. kb/knowledge/load.py builds them from a knowledge file
after checking it against kb/knowledge/schema.py; kb/knowledge/index.py builds the same classes
from its cache of the loader's normalised dicts, skipping TOML and validation, for `kb diagnose`'s
start-up. So this module stays cheap to import: plain classes (dataclasses pulls in inspect),
regexes compiled on first use, no pathlib until a path is asked for.
"""

from __future__ import annotations

from kb.knowledge.precompiled import pattern as _pattern

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re
    from pathlib import Path
    from typing import Any

    from kb.knowledge.reproductions import AffectedRange, Reproduction

CASE_FILE = "case.md"
KNOWN_MESSAGE_MIN = 12  # characters a signature's literal needs to mark a line holding no exception type


# The small tables (tables/*.toml) of the knowledge the index loaded last (kb/knowledge/index.py): read_table
# (kb/knowledge/tables.py) and redaction's rules (kb/diagnose/redact/rules.py) take them from here, without TOML. Here,
# not in tables.py: a warm `kb diagnose` reads them without importing that module (~20 KB of code it would not run).
LOADED_TABLES: dict[str, dict[str, Any]] = {}


class KnowledgeError(ValueError):
    """A knowledge file that cannot be loaded; the message names the file and the problem."""

FAMILY_SUFFIX = ".md"


class Signature:
    """How an error text is recognised (a case's or a family's); see kb/knowledge/schema.py SIGNATURE.

    ``literal`` is a substring every match of ``message`` contains (kb/knowledge/index.py works it
    out and caches it): ``may_match`` rejects a message without it before any regex runs.
    """

    __slots__ = ("raw", "name", "exceptions", "requires_frame", "requires_type", "compare", "specific",
                 "literal", "_compiled")

    def __init__(self, raw: dict[str, Any], literal: str = "") -> None:
        self.raw = raw
        self.name: str = raw["name"]
        self.exceptions: tuple[str, ...] = tuple(raw["exception"])
        self.requires_frame: bool = raw["requires_frame"]
        self.requires_type: bool = raw["requires_type"]
        self.compare: tuple[tuple[str, str, str], ...] = tuple(tuple(c) for c in raw["compare"])  # type: ignore[misc]
        self.specific: bool = raw["specific"]
        self.literal = literal
        self._compiled: dict[str, Any] = {}

    def _get(self, key: str) -> Any:
        value = self._compiled.get(key)
        if value is None:
            raw = self.raw[key]
            if key == "message":  # (kb/knowledge/precompiled.py: no re import, no compile once cached)
                value = _pattern(raw)
            elif key == "environment":
                value = tuple((k, _pattern(v)) for k, v in raw.items())
            else:
                value = tuple(_pattern(p) for p in raw)
            self._compiled[key] = value
        return value

    @property
    def message(self) -> re.Pattern[str]:
        return self._get("message")

    @property
    def frames(self) -> tuple[re.Pattern[str], ...]:
        return self._get("frames") if self.raw["frames"] else ()

    @property
    def hints(self) -> tuple[re.Pattern[str], ...]:
        return self._get("hints") if self.raw["hints"] else ()

    @property
    def excludes(self) -> tuple[re.Pattern[str], ...]:
        return self._get("excludes") if self.raw["excludes"] else ()

    @property
    def environment(self) -> tuple[tuple[str, re.Pattern[str]], ...]:
        return self._get("environment") if self.raw["environment"] else ()

    def may_match(self, text: str) -> bool:
        return not self.literal or self.literal in text

    def accepts_type(self, exception_type: str) -> bool:
        short = exception_type.rsplit(".", 1)[-1]
        return any(short == e.rsplit(".", 1)[-1] for e in self.exceptions)

    def document(self) -> dict[str, Any]:
        """Every field as written in the knowledge file (normalised): `kb show`, the docs and the index."""
        return {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v) for k, v in self.raw.items()}


class TriageEntry:
    """One cause of a family's failure: how to tell it apart, its fix, the case covering it."""

    __slots__ = ("cause", "tell", "fix", "case", "signatures")

    def __init__(self, raw: dict[str, Any]) -> None:
        self.cause: str = raw["cause"]
        self.tell: str = raw["tell"]
        self.fix: str = raw["fix"]
        self.case: str = raw["case"]
        self.signatures: tuple[str, ...] = tuple(raw.get("signatures") or ())


def parse_sections(markdown: str) -> dict[str, str]:
    """Split Markdown prose into ``{heading: body}`` on level-2 headings (fenced code excepted)."""
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


def split_front_matter(text: str, where: str) -> tuple[str, str]:
    """Return (toml, markdown) from a ``+++``-delimited document; raises ValueError naming ``where``."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "+++":
        raise ValueError(f"{where}: must start with a '+++' line (TOML front matter)")
    for i in range(1, len(lines)):
        if lines[i].strip() == "+++":
            return "".join(lines[1:i]), "".join(lines[i + 1:])
    raise ValueError(f"{where}: front matter is not closed by a '+++' line")


class _Entry:
    """What cases and families share: a knowledge file with signatures, a fix and prose."""

    kind = ""
    __slots__ = ("meta", "file", "signatures", "_sections")

    def __init__(self, meta: dict[str, Any], file: str, sections: dict[str, str] | None = None,
                 literals: list[str] | None = None) -> None:
        self.meta = meta
        self.file = file  # the knowledge file: a case's case.md, a family's <name>.md
        literals = literals or [""] * len(meta["signatures"])
        self.signatures = tuple(Signature(s, lit) for s, lit in zip(meta["signatures"], literals))
        self._sections = sections

    @property
    def title(self) -> str:
        return self.meta["title"]

    @property
    def summary(self) -> str:
        return self.meta["summary"]

    @property
    def fix_template(self) -> str:
        return self.meta["fix"]["template"]

    @property
    def numbers(self) -> list[dict[str, Any]]:
        """``[fix] numbers``: lines computed from the evidence (kb/diagnose/numbers.py)."""
        return self.meta["fix"].get("numbers", [])

    @property
    def libraries(self) -> tuple[str, ...]:
        return tuple(self.meta["libraries"])

    @property
    def sources(self) -> tuple[dict[str, str], ...]:
        return tuple(self.meta["sources"])

    @property
    def sections(self) -> dict[str, str]:
        """The prose under its ``##`` headings (read from the file on first use when built from the index)."""
        if self._sections is None:
            with open(self.file, encoding="utf-8") as handle:
                self._sections = parse_sections(split_front_matter(handle.read(), self.file)[1])
        return self._sections

    def signature(self, name: str) -> Signature:
        for sig in self.signatures:
            if sig.name == name:
                return sig
        raise KeyError(name)


class Case(_Entry):
    """One case folder under ``cases/``: ``case.md`` (front matter + prose) and its programs."""

    kind = "case"
    __slots__ = ("_reproductions",)

    def __init__(self, meta: dict[str, Any], file: str, sections: dict[str, str] | None = None,
                 literals: list[str] | None = None) -> None:
        super().__init__(meta, file, sections, literals)
        self._reproductions: tuple[Reproduction, ...] | None = None

    def __repr__(self) -> str:
        return f"Case({self.id} {self.slug})"

    id = property(lambda self: self.meta["id"])
    slug = property(lambda self: self.meta["slug"])
    family = property(lambda self: self.meta["family"])
    status = property(lambda self: self.meta["status"])
    setting = property(lambda self: self.meta["setting"])
    versions = property(lambda self: self.meta["versions"])
    # The fix as the few lines of the fixed program that change ([fix] snippet); "" when the case has none.
    fix_snippet = property(lambda self: self.meta["fix"].get("snippet", ""))

    @property
    def key(self) -> str:
        """What `kb show` takes and diagnose reports as ``id``."""
        return self.id

    @property
    def folder(self) -> str:
        import os

        return os.path.dirname(self.file)

    @property
    def folder_name(self) -> str:
        import os

        return os.path.basename(self.folder)

    @property
    def path(self) -> Path:
        from pathlib import Path

        return Path(self.folder)

    @property
    def hardware(self) -> tuple[str, ...]:
        hardware = self.meta["hardware"]
        if hardware:
            return tuple(hardware)
        return tuple(sorted({h for r in self.meta["reproductions"] for h in r["hardware"]}))

    @property
    def reproductions(self) -> tuple[Reproduction, ...]:
        if self._reproductions is None:
            from kb.knowledge.reproductions import Reproduction

            self._reproductions = tuple(Reproduction(r) for r in self.meta["reproductions"])
        return self._reproductions

    @property
    def affected(self) -> tuple[AffectedRange, ...]:
        from kb.knowledge.reproductions import AffectedRange

        return tuple(AffectedRange(a["package"], a["spec"], a["note"]) for a in self.meta["versions"].get("affected", []))

    @property
    def risks(self) -> list[dict[str, Any]]:
        return self.meta["risks"]

    def reproduction(self, name: str) -> Reproduction:
        for rep in self.reproductions:
            if rep.name == name:
                return rep
        raise KeyError(name)

    def program_source(self, filename: str) -> str:
        import os

        with open(os.path.join(self.folder, filename), encoding="utf-8") as handle:
            return handle.read()


class Family(_Entry):
    """A kind of failure (``families/<name>.md``): broad signatures, the triage of its causes, a generic fix."""

    kind = "family"
    __slots__ = ()

    def __repr__(self) -> str:
        return f"Family({self.name})"

    name = property(lambda self: self.meta["name"])

    @property
    def id(self) -> str:
        return self.meta["name"]

    slug = id
    key = id
    family = id
    status = "active"

    @property
    def triage(self) -> tuple[TriageEntry, ...]:
        return tuple(TriageEntry(t) for t in self.meta["triage"])


def library_names(table: dict[str, Any], role: str) -> tuple[str, ...]:
    """The names in a validated tables/libraries.toml with ``role``, in the table's order."""
    return tuple(lib["name"] for lib in table["library"] if role in lib["roles"])


class Knowledge:
    """Everything diagnose matches against: the cases, the families, generic meanings of exception types,
    and the small tables (``libraries``, ``noise``, ``gpus``: kb/knowledge/tables.py)."""

    __slots__ = ("cases", "families", "meanings", "tables", "api_history_families", "_families_by_name")

    def __init__(self, cases: tuple[Case, ...], families: tuple[Family, ...], meanings: dict[str, str],
                 tables: dict[str, dict[str, Any]] | None = None) -> None:
        self.cases, self.families, self.meanings = cases, families, meanings
        self.tables = tables if tables is not None else {}
        self._families_by_name = {f.name: f for f in families}
        # families whose answers carry the API history's facts (``api_history = true``; kb/diagnose/drift.py)
        self.api_history_families = frozenset(f.name for f in families if f.meta.get("api_history"))

    def libraries(self, role: str) -> tuple[str, ...]:
        """The libraries of tables/libraries.toml with ``role``, in the table's order."""
        return library_names(self.tables["libraries"], role)

    def literals(self, min_length: int = KNOWN_MESSAGE_MIN) -> tuple[str, ...]:
        """The signatures' required literals long enough to mark a line as a known message pasted without
        its exception type (a short one, ``NCCL `` or `` 137``, occurs in ordinary log lines)."""
        seen = {s.literal for e in (*self.cases, *self.families) for s in e.signatures if len(s.literal) >= min_length}
        return tuple(sorted(seen))

    def leading_literals(self) -> frozenset[str]:
        """The literals that begin their signature's message (the message starts where they do).
        (Backslashes dropped: the literal holds no regex syntax; str.replace, not re, for start-up.)"""
        return frozenset(
            s.literal for e in (*self.cases, *self.families) for s in e.signatures
            if s.literal and s.raw["message"].replace("\\", "").startswith(s.literal)
        )

    def family(self, name: str) -> Family | None:
        return self._families_by_name.get(name)

    def family_cases(self, family: Family) -> list[Case]:
        """The family's cases: those its triage names, in triage order, then any other case naming it."""
        by_slug = {c.slug: c for c in self.cases}
        ordered = [by_slug[t.case] for t in family.triage if t.case in by_slug]
        return ordered + [c for c in self.cases if c.family == family.name and c not in ordered]
