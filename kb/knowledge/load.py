"""Load knowledge files: read, check against the schema and the rules a kind cannot state, build the model.

Everything here needs only the standard library: no torch, and no case code is imported.
"""

from __future__ import annotations

import os
import re
import tomllib
from typing import Any

from kb.knowledge.literal import required_literal
from kb.knowledge.model import CASE_FILE, Case, Family, KnowledgeError, parse_sections, split_front_matter
from kb.knowledge.schema import SchemaError, validate, validate_with_children

ID_PATTERN = re.compile(r"^KB[0-9]{4}\Z")  # ASCII digits only (\d takes any Unicode digit); \Z: no trailing newline
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

# Headings every case.md body carries, in this order (`kb explain` and the docs page use them).
REQUIRED_SECTIONS = ("Symptom", "Why it happens", "Fix", "What did not work", "When this does not apply")
FAMILY_SECTIONS = ("What it means",)
EXCEPTION_TYPES_FILE = "exception-types.toml"


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise KnowledgeError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise KnowledgeError(f"{path}: is not UTF-8 text") from None


def read_document(path: str) -> tuple[dict[str, Any], str]:
    """The TOML front matter (parsed, not yet validated) and the Markdown prose of a knowledge file."""
    try:
        front, prose = split_front_matter(_read(path), path)
    except ValueError as exc:
        raise KnowledgeError(str(exc)) from None
    try:
        return tomllib.loads(front), prose
    except tomllib.TOMLDecodeError as exc:
        raise KnowledgeError(f"{path}: front matter is not valid TOML: {exc}") from None


def _compile(pattern: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise KnowledgeError(f"{where}: bad regular expression {pattern!r}: {exc}") from None


_SIZE_LITERAL = re.compile(r"\s*\d+(?:\.\d+)?\s*[KMGT]i?B\s*")


def check_signature(sig: dict[str, Any], where: str) -> None:
    """Regexes compile; ``compare`` operands are the message's named groups, literal sizes or ``a-b``
    of two (a typo must not silently make a signature never match)."""
    groups = set(_compile(sig["message"], f"{where}.message").groupindex)
    for key in ("frames", "hints", "excludes"):
        for pattern in sig[key]:
            _compile(pattern, f"{where}.{key}")
    for fact, pattern in sig["environment"].items():
        _compile(pattern, f"{where}.environment.{fact}")
    for left, _op, right in sig["compare"]:
        for operand in (left, right):
            unknown = [n for n in operand.split("-") if n.strip() not in groups and not _SIZE_LITERAL.fullmatch(n)]
            if unknown:
                raise KnowledgeError(f"{where}.compare: {operand!r} names no capture of the message regex "
                                     f"({', '.join(unknown)})")


def _check_sections(sections: dict[str, str], required: tuple[str, ...], where: str) -> None:
    missing = [s for s in required if not sections.get(s, "").strip()]
    if missing:
        raise KnowledgeError(f"{where}: prose lacks the section(s) {', '.join('## ' + s for s in missing)}")


def _check_case(meta: dict[str, Any], folder: str, where: str) -> None:
    from kb.knowledge.versions import InvalidSpecifier, validate_spec
    from kb.knowledge.pins import PinError, parse_pins

    if not ID_PATTERN.match(meta["id"]):
        raise KnowledgeError(f"{where}: id {meta['id']!r} is not KB followed by four digits")
    if not SLUG_PATTERN.match(meta["slug"]):
        raise KnowledgeError(f"{where}: slug {meta['slug']!r} is not kebab-case")
    if not SLUG_PATTERN.match(meta["family"]):
        raise KnowledgeError(f"{where}: family {meta['family']!r} is not a family name")
    names = [s["name"] for s in meta["signatures"]]
    if len(set(names)) != len(names):
        raise KnowledgeError(f"{where}: two signatures share a name")
    if names and not meta["fix"]["template"].strip():
        raise KnowledgeError(f"{where}: has signatures but no [fix] template for kb diagnose to print")
    for i, sig in enumerate(meta["signatures"]):
        check_signature(sig, f"{where}: signatures[{i}]")
    for i, rng in enumerate(meta["versions"].get("affected", [])):
        try:
            validate_spec(rng["spec"])
        except InvalidSpecifier as exc:
            raise KnowledgeError(f"{where}: versions.affected[{i}]: {exc}") from None
    for i, rep in enumerate(meta["reproductions"]):
        rw = f"{where}: reproductions[{i}]"
        parsed = {}
        for key in ("pins", "fixed_pins"):
            try:
                parsed[key] = parse_pins(rep[key]) if rep[key] is not None else None
            except PinError as exc:
                raise KnowledgeError(f"{rw}.{key}: {exc}") from None
        if parsed["fixed_pins"] is not None and set(parsed["fixed_pins"]) == set(parsed["pins"] or ()):
            raise KnowledgeError(f"{rw}.fixed_pins: the same versions as pins (leave fixed_pins out: both programs "
                                 "then run on pins)")
        for program in ("failing", "fixed"):
            if not os.path.isfile(os.path.join(folder, rep[program])):
                raise KnowledgeError(f"{rw}.{program}: no file {rep[program]!r} in the case folder")
        for expect in ("failing_expect", "fixed_expect"):
            exp = rep[expect]
            if exp["signature"] is not None and exp["signature"] not in names:
                raise KnowledgeError(f"{rw}.{expect}.signature: {exp['signature']!r} names no signature of the case")
            for key, pattern in exp["raised_in"].items():
                if pattern is not None:
                    _compile(pattern, f"{rw}.{expect}.raised_in.{key}")
            for pattern in exp["warnings"]:
                _compile(pattern, f"{rw}.{expect}.warnings")
    for i, risk in enumerate(meta["risks"]):
        from kb.knowledge.rules import RuleError, check_conditions

        for j, branch in enumerate(risk["branches"]):
            try:
                check_conditions(branch["when"])
            except RuleError as exc:
                raise KnowledgeError(f"{where}: risks[{i}].branches[{j}].when: {exc}") from None


def load_case(folder: Any) -> Case:
    """Load one case folder; raises :class:`KnowledgeError` naming the file and the key."""
    folder = os.fspath(folder)
    path = os.path.join(folder, CASE_FILE)
    raw, prose = read_document(path)
    try:
        meta = validate_with_children(raw, "case", path)
    except SchemaError as exc:
        raise KnowledgeError(str(exc)) from None
    _check_case(meta, folder, path)
    sections = parse_sections(prose)
    _check_sections(sections, REQUIRED_SECTIONS, path)
    return Case(meta, path, sections, [required_literal(s["message"]) for s in meta["signatures"]])


def load_family(path: Any) -> Family:
    """Load one ``families/<name>.md``; raises :class:`KnowledgeError` naming the file and the key."""
    path = os.fspath(path)
    raw, prose = read_document(path)
    try:
        meta = validate(raw, "family", path)
    except SchemaError as exc:
        raise KnowledgeError(str(exc)) from None
    stem = os.path.basename(path)[: -len(".md")]
    if meta["name"] != stem:
        raise KnowledgeError(f"{path}: name {meta['name']!r} differs from the file's name {stem!r}")
    names = [s["name"] for s in meta["signatures"]]
    if len(set(names)) != len(names):
        raise KnowledgeError(f"{path}: two signatures share a name")
    for i, sig in enumerate(meta["signatures"]):
        if sig["specific"]:
            raise KnowledgeError(f"{path}: signatures[{i}].specific: only a case's signature can be specific")
        check_signature(sig, f"{path}: signatures[{i}]")
    if not meta["triage"]:
        raise KnowledgeError(f"{path}: triage lists no cause")
    if not meta["fix"]["template"].strip():
        raise KnowledgeError(f"{path}: [fix] template is empty (the generic fix kb diagnose prints)")
    sections = parse_sections(prose)
    _check_sections(sections, FAMILY_SECTIONS, path)
    return Family(meta, path, sections, [required_literal(s["message"]) for s in meta["signatures"]])


def load_exception_types(path: str) -> dict[str, str]:
    """``{type name: meaning}`` from ``families/exception-types.toml`` ({} when it does not exist)."""
    if not os.path.isfile(path):
        return {}
    try:
        raw = tomllib.loads(_read(path))
        meta = validate(raw, "exception_types", path)
    except tomllib.TOMLDecodeError as exc:
        raise KnowledgeError(f"{path}: not valid TOML: {exc}") from None
    except SchemaError as exc:
        raise KnowledgeError(str(exc)) from None
    return {t["name"]: t["meaning"] for t in meta["types"]}
