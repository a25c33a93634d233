"""Module-level constants of the modules read without a parse (transformers' per-model packages).

exports.py reads transformers' ~400-1,600 per-model modules (`transformers.models.llama.modeling_llama`) with a
regex of their top-level `class`/`def` lines and their `__all__` (light_exports): a full parse of every one of them
in every release would take hours. So a name bound by a top-level assignment was never recorded:
`LLAMA_ATTENTION_CLASSES` (modeling_llama), the `*_PRETRAINED_MODEL_ARCHIVE_LIST` lists, `*_START_DOCSTRING`; the
history then said that no release had them. This layer adds, to each release's light
modules, the public names that an assignment at column 0 binds (`NAME = ...`, `NAME: T = ...`), read with a line scan
of the same sources; it runs at build time on the cached extractions (no re-extraction), one scan per release,
cached under ~/.cache/kb/apidrift/extract/<library>-<version>-light-v<VERSION>.json.

A patch release whose wheel is not cached (transformers 4.10.1, 4.10.2: probed, never read in full) takes its minor's
last release's names, as build.py takes an unreadable patch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from kb.apidrift.releases import CACHE
from kb.apidrift.scancache import cached, later_in_minor
from kb.apidrift.wheel import Wheel

VERSION = 1

# A public name bound at column 0 by `NAME = ...` or `NAME: T = ...` (not `==`, not an attribute or subscript target).
# Anchored on a newline, not `^` with re.MULTILINE: ~4x faster on the ~38 MB of a release's per-model modules.
_ASSIGN = re.compile(r"\n([A-Za-z]\w*)[ \t]*(?::[^=\n]*)?=(?!=)")


def _in_string(source: str, at: int) -> bool:
    """Whether position `at` lies inside a triple-quoted string (a docstring's example may hold `model = ...` at
    column 0): an odd number of triple quotes of either kind before it."""
    return source.count('"""', 0, at) % 2 == 1 or source.count("\'\'\'", 0, at) % 2 == 1


def assigned_names(source: str) -> set[str]:
    """Public names that a top-level (column 0) assignment binds in `source` (none inside a triple-quoted string)."""
    text = "\n" + source
    found: set[str] = set()
    for match in _ASSIGN.finditer(text):
        name = match.group(1)
        if not name.startswith("_") and name not in found and not _in_string(text, match.start()):
            found.add(name)
    return found


def light_modules(spec: dict, modules: list[str]) -> list[str]:
    """The modules exports.py reads without a parse (targets' skip_modules_detail, less its detailed_modules)."""
    light = tuple(spec.get("skip_modules_detail", []))
    detailed = tuple(spec.get("detailed_modules", []))
    return [m for m in modules if light and m.startswith(light) and not m.startswith(detailed)]


def scan(lib: str, spec: dict, wheel_path: Path) -> dict[str, list[str]]:
    """{light module: [names its top-level assignments bind]} of one wheel (modules with none left out)."""
    wheel = Wheel(wheel_path, lib)
    out: dict[str, list[str]] = {}
    for module in light_modules(spec, wheel.modules()):
        names = assigned_names(wheel.source(module) or "")
        if names:
            out[module] = sorted(names)
    return out


def cache_path(lib: str, version: str, cache: Path = CACHE) -> Path:
    return cache / "extract" / f"{lib}-{version}-light-v{VERSION}.json"


def cached_scan(lib: str, version: str, spec: dict, wheel: Callable[[], Path | None],
                cache: Path = CACHE) -> dict[str, list[str]] | None:
    """scan(), cached; None when the release's file is not at hand (`wheel()` gives None)."""
    return cached(cache_path(lib, version, cache), wheel, lambda p: scan(lib, spec, p))


def add_constants(lib: str, spec: dict, records: list[dict], wheel: Callable[[str], Path | None]) -> int:
    """Add to each record's exports (in place, with new dicts: patch records share their minor's) the names its
    light modules' assignments bind. A record without a readable wheel takes the nearest later record of its minor
    that has one (the minor's last release is always read), else the nearest earlier one. Returns the number of (release, module, name) added."""
    if not spec.get("skip_modules_detail"):
        return 0
    scans: dict[str, dict[str, list[str]] | None] = {
        r["version"]: cached_scan(lib, r["version"], spec, lambda v=r["version"]: wheel(v)) for r in records}
    added = 0
    for i, record in enumerate(records):
        names = scans[record["version"]]
        if names is None:  # the minor's nearest later release, else the nearest earlier one
            later = later_in_minor(records, i)
            earlier = [r["version"] for r in reversed(records[:i])]
            names = next((scans[v] for v in later + earlier if scans[v] is not None), None)
        if not names:
            continue
        exports = dict(record.get("exports", {}))
        for module, assigned in names.items():
            if module not in exports:
                continue  # a module the extraction did not read (not in this release's wheel)
            current = set(exports[module])
            new = set(assigned) - current
            if new:
                exports[module] = sorted(current | new)
                added += len(new)
        record["exports"] = exports
    return added
