"""Releases in the middle of a name's life that lack it (A -> B -> A): the history has the name before and after,
and a run of releases between without it. transformers.trainer imported `unwrap_model` from modeling_utils in
4.4.0-4.40.2, not in 4.41.0-4.46.3, and again from 4.47.0: code that imports it from transformers.trainer fails on
those releases only. Without the installed version the answer cannot tell which side the user is on, so it names
each hole (the release that dropped the name and the one that brought it back) and where the name lived in the
hole's releases, beside the answer's other readings (kb/apidrift/answer.py's _tell_gaps tells the holes of any
kind of name; for an import, gap_homes adds where the name lived).
"""

from __future__ import annotations

STEADY = 0.8  # share of a module's names two adjacent releases must share for a hole between them to be read


def steady(h, lib: str, module: str, a: str, b: str) -> bool:  # noqa: ANN001 - a kb.apidrift History
    """Whether `module` exports much the same names in releases `a` and `b`. A hole where the module's names
    collapse or swell is the history's, not the library's: huggingface_hub 0.8.0-0.9.1 loaded its top level
    lazily (the wheels' imports show 20 names, not 71), torch before 1.6.0 declared few compiled names."""
    old, new = h.exports(lib, module, a) or set(), h.exports(lib, module, b) or set()
    return bool(old and new) and len(old & new) >= STEADY * max(len(old), len(new))


def holes(versions: list[str], accepted: list[str]) -> list[tuple[int, int]]:
    """(first, last) indexes into ``versions`` of each run of releases without the name that lies between two with it."""
    having = set(accepted)
    found: list[tuple[int, int]] = []
    start = None
    first = versions.index(accepted[0]) if accepted and accepted[0] in versions else len(versions)
    for i, version in enumerate(versions[first:], first):
        if version in having:
            if start is not None:
                found.append((start, i - 1))
                start = None
        elif start is None:
            start = i
    return found


def gap_homes(h, lib: str, module: str, name: str, versions: list[str], start: int, end: int) -> list[str]:  # noqa: ANN001
    """The public modules that export `name` in the last release of the gap ``versions[start..end]`` of `module`'s
    export of it: where code can import it from on those releases. None when the gap's edges are not steady (see
    steady): such a gap may be the history's reading, and an import from elsewhere would be advice built on it."""
    before, gone, last, back = versions[start - 1], versions[start], versions[end], versions[end + 1]
    if not (steady(h, lib, module, before, gone) and steady(h, lib, module, last, back)):
        return []
    return sorted(m for m in h.exporting_modules(lib, name, last) or []
                  if m != module and not m.split(".")[-1].startswith("_"))
