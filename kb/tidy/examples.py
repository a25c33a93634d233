"""examples/manifest.toml: what each example is recognised as, and the signatures nothing exercises yet.

::

    # An example: kb diagnose's top answer for examples/<file> must be `expect`
    # (a case's id or slug, or a family's name).
    [[example]]
    file = "dtype-double-vs-float.txt"
    expect = "dtype-double-vs-float"
    source = "../shared/incidents/ohlora-stylegan-llm-issues.md"   # optional: where the text comes from

    # Signatures no recorded output, example or dev-set output exercises, and why.
    [[unexercised]]
    entry = "KB0005"                 # a case's id or slug, or a family's name
    signatures = ["t4-full"]
    reason = "..."

`kb check` fails on an example answered otherwise, on an ``examples/*.txt`` without an entry, on a
signature nothing exercises that no ``[[unexercised]]`` entry names, and on an entry naming a signature
that something now exercises (remove it: the list only shrinks).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.tidy.problem import Problem

MANIFEST = "manifest.toml"
EXAMPLE_KEYS = {"file": True, "expect": True, "source": False, "note": False}  # key: required
UNEXERCISED_KEYS = {"entry": True, "signatures": True, "reason": True}


@dataclass(frozen=True)
class Example:
    index: int
    file: str
    expect: str


@dataclass(frozen=True)
class Allowance:
    index: int
    entry: str
    signatures: tuple[str, ...]
    reason: str


@dataclass
class Manifest:
    path: Path
    examples: list[Example] = field(default_factory=list)
    allowances: list[Allowance] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _tables(raw: dict[str, Any], key: str, keys: dict[str, bool], manifest: Manifest) -> list[tuple[int, dict[str, Any]]]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        manifest.problems.append(Problem(str(manifest.path), "example", f"{key} is not a list of tables ([[{key}]])"))
        return []
    good = []
    for i, table in enumerate(value):
        unknown = sorted(set(table) - set(keys))
        missing = [k for k, required in keys.items() if required and k not in table]
        if unknown or missing:
            what = "; ".join(filter(None, [unknown and f"unknown key {', '.join(map(repr, unknown))}",
                                           missing and f"lacks {', '.join(missing)}"]))
            manifest.problems.append(Problem(str(manifest.path), "example", f"{key}[{i}]: {what}"))
            continue
        good.append((i, table))
    return good


def read_manifest(folder: Path) -> Manifest:
    """The examples folder's manifest (empty when there is none); its faults are ``example`` problems."""
    manifest = Manifest(folder / MANIFEST)
    if not manifest.path.is_file():
        return manifest
    try:
        raw = tomllib.loads(manifest.path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        manifest.problems.append(Problem(str(manifest.path), "example", f"cannot be read: {exc}"))
        return manifest
    for key in sorted(set(raw) - {"example", "unexercised"}):
        manifest.problems.append(Problem(str(manifest.path), "example",
                                         f"unknown table {key!r} (known: [[example]], [[unexercised]])"))
    for i, t in _tables(raw, "example", EXAMPLE_KEYS, manifest):
        if not all(isinstance(t[k], str) and t[k].strip() for k in ("file", "expect")):
            manifest.problems.append(Problem(str(manifest.path), "example", f"example[{i}]: file and expect are "
                                             "not both non-empty strings"))
            continue
        manifest.examples.append(Example(i, t["file"], t["expect"].strip()))
    for i, t in _tables(raw, "unexercised", UNEXERCISED_KEYS, manifest):
        sigs = t["signatures"]
        if isinstance(sigs, str):
            sigs = [sigs]
        if not (isinstance(t["entry"], str) and isinstance(sigs, list) and sigs and all(isinstance(s, str) for s in sigs)):
            manifest.problems.append(Problem(str(manifest.path), "signature", f"unexercised[{i}]: entry is not a "
                                             "string or signatures not a list of names"))
            continue
        if not isinstance(t["reason"], str) or not t["reason"].strip():
            manifest.problems.append(Problem(str(manifest.path), "signature", f"unexercised[{i}]: {t['entry']}: "
                                             "the reason is empty (say why nothing exercises these signatures)"))
            continue
        manifest.allowances.append(Allowance(i, t["entry"].strip(), tuple(sigs), t["reason"].strip()))
    return manifest
