"""The per-release scans the history build adds from each cached wheel (light.py, modelclasses.py, decorated.py, validated.py, namedefaults.py): one
JSON file a release under the extract cache, and the minor a release belongs to."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def cached(path: Path, wheel: Callable[[], Path | None], scan: Callable[[Path], Any]) -> Any:
    """``scan(wheel())``, kept as JSON at ``path``; None when the release's file is not at hand (``wheel()`` gives
    None), which is not cached."""
    if path.exists():
        return json.loads(path.read_text())
    found = wheel()
    if found is None:
        return None
    result = scan(found)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, sort_keys=True))
    return result


def minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def later_in_minor(records: list[dict], index: int) -> list[str]:
    """The versions after ``records[index]`` in its minor (a release without a cached wheel takes their scan)."""
    own = minor(records[index]["version"])
    return [r["version"] for r in records[index + 1:] if minor(r["version"]) == own]


def scan_for(records: list[dict], index: int, scans: dict[str, Any]) -> Any:
    """``records[index]``'s scan (``scans``: by version, None where no wheel is cached), else the scan of the nearest
    later release of its minor that has one; None when none has."""
    found = scans[records[index]["version"]]
    if found is None:
        found = next((scans[v] for v in later_in_minor(records, index) if scans[v] is not None), None)
    return found


def scanned_records(records: list[dict], scan: Callable[[str], Any]) -> Iterator[tuple[dict, Any]]:
    """(record, its scan) for each record whose scan (scan_for) found something, in order. ``scan(version)``: the
    release's cached scan, or None where its file is not at hand; every release is scanned first, then the records
    are read (a release without a cached wheel takes a later one's scan of its minor)."""
    scans = {r["version"]: scan(r["version"]) for r in records}
    for i, record in enumerate(records):
        found = scan_for(records, i, scans)
        if found:
            yield record, found
