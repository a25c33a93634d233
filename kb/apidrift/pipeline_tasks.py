"""The task names transformers' `pipeline()` accepts, per release (tables/api-history-pipeline-tasks.json.gz).

`pipeline("translation", ...)` on transformers 5.0.0 raises `KeyError: "Unknown task translation, available tasks are
[...]"`: 5.0.0 dropped `summarization`, `translation`, `text2text-generation` and `image-to-text` from
`SUPPORTED_TASKS` (transformers/pipelines/__init__.py), while code written for 4.x still names them. The history's
exports and parameters do not hold a dict's keys, so this table does: the keys of `SUPPORTED_TASKS` read from every
cached transformers wheel with a `pipelines/__init__.py` (`python -m kb.apidrift.pipeline_tasks build`), each task
with the releases that have it, as index ranges over the scanned releases.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kb.apidrift.json_table import read_table, write_table

TABLE = "api-history-pipeline-tasks.json.gz"
_KEY = re.compile(r'^    "([a-z0-9][a-z0-9-]*)": \{', re.M)


def supported_tasks(source: str) -> set[str]:
    """The keys of the `SUPPORTED_TASKS = {...}` literal of a pipelines/__init__.py (its 4-space-indented keys)."""
    start = source.find("SUPPORTED_TASKS = {")
    if start < 0:
        return set()
    end = source.find("\n}", start)
    return set(_KEY.findall(source[start:end if end > 0 else len(source)]))


def _spans(indices: list[int]) -> str:
    out: list[str] = []
    for i in indices:
        if out and "-" in out[-1] and int(out[-1].split("-")[1]) == i - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{i}"
        elif out and "-" not in out[-1] and int(out[-1]) == i - 1:
            out[-1] = f"{out[-1]}-{i}"
        else:
            out.append(str(i))
    return ",".join(out)


def _indices(spans: str) -> list[int]:
    got: list[int] = []
    for part in spans.split(","):
        a, _, b = part.partition("-")
        got.extend(range(int(a), int(b or a) + 1))
    return got


def build() -> dict:
    """Scan every cached transformers wheel; the table's data: the scanned releases and, per task, their indices."""
    import zipfile
    from pathlib import Path

    from kb.apidrift.releases import CACHE, version_key

    wheels = {p.name.split("-")[1]: p for p in (Path(CACHE) / "wheels").glob("transformers-*.whl")}
    versions, scans = [], []
    for version in sorted(wheels, key=version_key):
        with zipfile.ZipFile(wheels[version]) as wheel:
            if "transformers/pipelines/__init__.py" not in wheel.namelist():
                continue
            tasks = supported_tasks(wheel.read("transformers/pipelines/__init__.py").decode("utf-8", "replace"))
        if tasks:
            versions.append(version)
            scans.append(tasks)
    tasks = {task: _spans([i for i, scan in enumerate(scans) if task in scan])
             for task in sorted({t for scan in scans for t in scan})}
    return {"format": 1, "library": "transformers", "versions": versions, "tasks": tasks}


@lru_cache(maxsize=1)
def _table() -> dict:
    return read_table(TABLE) or {}


def task_versions(task: str) -> tuple[list[str], list[str]] | None:
    """(the scanned releases, those whose pipeline() knows ``task``), or None when no scanned release knows it.
    `translation_en_to_fr` is read as `translation` (pipeline() parses the language pair off it)."""
    table = _table()
    spans = table.get("tasks", {}).get(task)
    if spans is None and task.startswith("translation_"):
        spans = table.get("tasks", {}).get("translation")
    if spans is None:
        return None
    versions = table.get("versions", [])
    return versions, [versions[i] for i in _indices(spans)]


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m kb.apidrift.pipeline_tasks", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build"])
    parser.parse_args(argv)
    data = build()
    print(write_table(TABLE, data), len(data["versions"]), "releases,", len(data["tasks"]), "tasks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
