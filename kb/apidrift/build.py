"""`python -m kb.apidrift build`: fetch the releases' wheels, extract each once, merge, write the data file."""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

from kb.apidrift.extract import cached_extract
from kb.knowledge.tables import api_history_path
from kb.apidrift.merge import merge
from kb.apidrift.releases import (
    CACHE,
    LIBRARIES,
    available_versions,
    fetch_wheel,
    find_wheel,
    latest_patches,
)


def build(libs: list[str], wheels: Path, output: Path | None = None, offline: bool = False) -> dict:
    output = output or Path(api_history_path())
    per_version: dict[str, list[dict]] = {}
    # the other libraries' extractions are needed too: a trl config inherits transformers' fields
    for lib in LIBRARIES:
        if offline or lib not in libs:  # other libraries: only what the cache holds (for cross-library bases)
            versions = sorted({p.name.split("-")[1] for p in wheels.glob(f"{lib}-*.whl")},
                              key=lambda v: tuple(int(x) for x in v.split(".") if x.isdigit()))
            versions = latest_patches(lib, versions)
        else:
            versions = latest_patches(lib, available_versions(lib))
        per_version[lib] = []
        for version in versions:
            start = time.time()
            local = offline or lib not in libs
            wheel = find_wheel(lib, version, wheels) if local else fetch_wheel(lib, version, wheels)
            if wheel is None:
                print(f"{lib} {version}: no wheel, skipped", file=sys.stderr)
                continue
            per_version[lib].append(cached_extract(lib, version, wheel))
            print(f"{lib} {version}: {time.time() - start:.1f}s", file=sys.stderr)
    history = merge(per_version)
    if set(libs) != set(LIBRARIES) and output.exists():
        # rebuild only the named libraries; keep the others as shipped
        with gzip.open(output, "rt", encoding="utf-8") as f:
            old = json.load(f)
        for lib in set(LIBRARIES) - set(libs):
            if lib in old["libraries"]:
                history["libraries"][lib] = old["libraries"][lib]
    text = json.dumps(history, separators=(",", ":"), sort_keys=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
        f.write(text.encode("utf-8"))
    return history


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m kb.apidrift")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="download new releases' wheels, extract, and rewrite the shipped history")
    b.add_argument("--lib", action="append", choices=LIBRARIES, help="only these libraries (repeatable)")
    b.add_argument("--wheels", type=Path, default=CACHE / "wheels", help="wheel cache folder")
    b.add_argument("--offline", action="store_true", help="use only wheels already in --wheels")
    b.add_argument("--output", type=Path, default=None, help="default: tables/api-history.json.gz")
    args = parser.parse_args(argv)
    args.output = args.output or Path(api_history_path())
    history = build(args.lib or list(LIBRARIES), args.wheels, args.output, args.offline)
    for lib, entry in history["libraries"].items():
        v = entry["versions"]
        print(f"{lib}: {len(v)} releases, {v[0]}..{v[-1]}" if v else f"{lib}: none")
    print(f"wrote {args.output} ({args.output.stat().st_size / 1e6:.2f} MB)")
    return 0
