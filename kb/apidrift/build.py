"""`python -m kb.apidrift build`: fetch the releases' wheels, extract each once, probe patches, merge, write the data file."""

from __future__ import annotations

import gzip
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from kb.apidrift.bisect import (
    bisect_minor,
    cached_probe,
    cached_probe_facts,
    cached_text_diff,
    changed,
    date_facts,
    fact_key,
    reread_undone,
)
from kb.apidrift.decorated import add_facts
from kb.apidrift.extract import cached_extract, extract_cache
from kb.apidrift.history import pack, targets, unpack
from kb.apidrift.light import add_constants
from kb.apidrift.modelclasses import add_members
from kb.apidrift.namedefaults import resolve_defaults
from kb.apidrift.validated import add_keywords
from kb.apidrift.merge import merge
from kb.apidrift.releases import (
    CACHE,
    LIBRARIES,
    available_versions,
    choose_file,
    fetch_wheel,
    index_files,
    find_wheel,
    latest_patches,
    patches_by_minor,
    version_key,
    yanked_versions,
)
from kb.knowledge.tables import api_history_path


def _cached_versions(lib: str, wheels: Path) -> list[str]:
    stem = lib.replace("-", "_")
    names = [p.name for p in wheels.glob(f"{stem}-*.whl")] + [p.name for p in wheels.glob(f"{stem}-*.tar.gz")]
    found = {n[len(stem) + 1:].split("-")[0].removesuffix(".tar.gz") for n in names}
    return sorted(found, key=version_key)


def _upload_dates(lib: str, versions: list[str]) -> dict[str, str]:
    """Upload date of each release's chosen file (the `built` of a patch that was never read)."""
    try:
        files = index_files(lib, refresh=False)
    except (OSError, ValueError):
        return {}
    out = {}
    for version in versions:
        chosen = choose_file(lib, files.get(version, []))
        if chosen and chosen.get("upload-time"):
            out[version] = chosen["upload-time"][:10]
    return out


class NoWheel(RuntimeError):
    """A release whose file could not be fetched (or, offline, is not in the cache)."""


def library_releases(lib: str, wheels: Path, online: bool, patches: bool = True, start: str | None = None,
                     drop_over_mb: float | None = None, cache_only: bool = False) -> list[dict]:
    """The extractions of one library in version order: each minor's earlier patches (bisected), then its last.
    A yanked earlier patch is read in full, not bisected: it was yanked because something in it was wrong, and
    a change it made may be undone by the next patch (the bisection assumes a fact changes once in a minor).
    `start`: begin at that minor (and the one before it, needed to bisect it): a second process can fill the
    cache for the newer half while another reads the older one.
    A release's file is fetched only when its extraction (or probe) is not cached, so a wheel may be deleted
    once read; `drop_over_mb`: delete this library's files over that size once their minor is read (old torch
    wheels are ~40-220 MB each; the extractions, not the wheels, are what a rebuild needs). `cache_only`: read no
    file, only cached extractions and probes (a library a partial rebuild does not rebuild); [] unless every minor's
    last release is cached (a partial list would date the rebuilt libraries' inherited parameters wrongly)."""
    if online:
        versions = available_versions(lib)
    else:  # the index as last fetched, else the files in the cache
        try:
            versions = available_versions(lib, refresh=False)
        except (OSError, ValueError, KeyError):
            versions = _cached_versions(lib, wheels)
    latest = latest_patches(lib, versions)
    by_minor = patches_by_minor(lib, versions) if patches else {v: [] for v in latest}
    if start:
        first = next((i for i, v in enumerate(latest) if version_key(v)[:2] >= version_key(start)[:2]), len(latest))
        latest = latest[max(first - 1, 0):]
    dates = _upload_dates(lib, versions)
    yanked = set(_yanked(lib))

    def get(version: str) -> Path | None:
        try:
            return fetch_wheel(lib, version, wheels) if online else find_wheel(lib, version, wheels)
        except (RuntimeError, OSError) as error:
            print(f"{lib} {version}: {error}", file=sys.stderr)
            return None

    def fetcher(version: str):
        """A function giving the file of `version`: the cached_* functions call it only on a cache miss."""
        def fetch() -> Path:
            path = get(version)
            if path is None:
                raise NoWheel(f"{lib} {version}: no wheel")
            return path
        return fetch

    def local(version: str):
        """A function giving the file of `version` only when it is already in the cache: a text diff never fetches
        (a patch wheel deleted once read, torch's, is not downloaded again for it)."""
        def find() -> Path:
            path = find_wheel(lib, version, wheels)
            if path is None:
                raise NoWheel(f"{lib} {version}: not in the cache")
            return path
        return find

    def drop(minor_versions: list[str]) -> None:
        if drop_over_mb is None:
            return
        for version in minor_versions:
            path = find_wheel(lib, version, wheels)
            if path is not None and path.stat().st_size > drop_over_mb * 1e6:
                path.unlink()

    missing = [v for v in latest if not extract_cache(lib, v).exists()]
    if cache_only:
        if missing:
            return []
        online, wheels = False, Path("/nonexistent")  # find_wheel finds nothing: only the caches answer
    with ThreadPoolExecutor(max_workers=2 if drop_over_mb else 6) as pool:  # fetched ahead of the reading
        list(pool.map(get, missing[:2] if drop_over_mb else missing))
    out: list[dict] = []
    previous: dict | None = None
    for last in latest:
        began = time.time()
        try:
            full = cached_extract(lib, last, fetcher(last))
        except NoWheel:
            print(f"{lib} {last}: no wheel, skipped", file=sys.stderr)
            continue
        print(f"{lib} {last}: {time.time() - began:.1f}s", file=sys.stderr)
        earlier = by_minor[last]
        whole = []
        # a yanked patch, and every earlier patch of the first covered minor (nothing before it to bisect
        # against: torch 1.0.0, where `torch.tensordot` first came), are read in full
        for version in [v for v in earlier if v in yanked or previous is None]:
            began = time.time()
            try:
                whole.append({**cached_extract(lib, version, fetcher(version)), **({"yanked": True} if version in yanked else {})})
            except NoWheel:
                continue
            print(f"{lib} {version} (read in full): {time.time() - began:.1f}s", file=sys.stderr)
        earlier = [v for v in earlier if v not in yanked and previous is not None]
        if earlier:
            keys = changed(previous, full)

            def read(version: str, some: dict[str, list[str]], full: dict = full) -> dict:
                began = time.time()
                try:
                    result = cached_probe(lib, version, fetcher(version), full, some)
                except NoWheel:  # an unreadable patch: taken as its minor's last
                    return {**full, "version": version}
                print(f"{lib} {version}: probed {sum(map(len, some.values()))} keys, {time.time() - began:.1f}s",
                      file=sys.stderr)
                return result

            patches = (bisect_minor(earlier, full, keys, read, dates) if keys else
                       bisect_minor(earlier, full, {}, lambda v, k, full=full: {**full, "version": v}, dates))

            def read_facts(version: str, some: dict[str, list[str]], full: dict = full) -> dict:
                began = time.time()
                try:
                    result = cached_probe_facts(lib, version, fetcher(version), some["facts"])
                except NoWheel:  # an unreadable patch: taken as its minor's last
                    return {"fact_keys": {fact_key(f): f for f in full.get("facts", [])}}
                print(f"{lib} {version}: probed {len(some['facts'])} messages, {time.time() - began:.1f}s", file=sys.stderr)
                return result

            date_facts(patches, previous, full, read_facts)
            diffs = {v: cached_text_diff(lib, v, last, local(v), local(last)) for v in earlier}
            undone = reread_undone(patches, full, previous, read, diffs)
            if undone:
                print(f"{lib} {last}'s minor: {undone} export sets read again where a patch's source differs", file=sys.stderr)
            whole += patches
        drop([last, *by_minor[last]])
        out.extend(sorted(whole, key=lambda r: version_key(r["version"])))
        out.append(full)
        previous = full
    return out


def _yanked(lib: str) -> list[str]:
    try:
        return yanked_versions(lib)
    except (OSError, ValueError, KeyError):  # offline, no index cached: none known
        return []


def annotate(entry: dict, yanked: list[str]) -> None:
    """Add to a merged library table what merge() does not know: its yanked releases (``"yanked"``, those
    covered), and for each stated rename/deprecation the last release before its `since`
    (``"since_last_without"``: the release before the first that states it; None when the first covered
    release already states it, so that `since` is only a bound; for a lineage entry, its `until`)."""
    from kb.apidrift.ranges import decode

    versions = entry["versions"]
    covered = set(versions)
    entry["yanked"] = [v for v in yanked if v in covered]
    for rename in entry.get("renames", []):
        if rename.get("source") == "lineage":
            rename["since_last_without"] = rename["until"]
            continue
        first = min(decode(rename["seen"]))
        rename["since_last_without"] = versions[first - 1] if first > 0 else None


def unread_externals(per_version: dict[str, list[dict]], libs: list[str]) -> dict[str, set[str]]:
    """{rebuilt library: the covered libraries its parameters or members inherit from (their `external` paths) that
    have no extraction here}: peft's configs reach transformers' PushToHubMixin, torch and accelerate reach none."""
    out: dict[str, set[str]] = {}
    for lib in libs:
        for record in per_version.get(lib, []):
            for section in ("params", "members"):
                for entry in record.get(section, {}).values():
                    for path in entry.get("external", []):
                        other = path.split(".")[0]
                        if other != lib and other in per_version and not per_version[other]:
                            out.setdefault(lib, set()).add(other)
    return out


def keep_shipped(history: dict, old: dict, libs: list[str]) -> None:
    """A rebuild of only ``libs``: the other libraries' tables of ``history`` replaced by the shipped ones (``old``, the
    packed file as loaded), and, unless transformers is rebuilt, the shipped ``model_types`` and ``rope`` too: merge()
    reads them from transformers' extractions, which a rebuild of torch alone does not have (it would write them
    empty). Nothing is kept from a shipped file of another format."""
    if old.get("format") != history["format"]:
        return
    for lib in set(LIBRARIES) - set(libs):
        if lib in old["libraries"]:
            history["libraries"][lib] = unpack(old["libraries"][lib])
    if "transformers" not in libs:
        for key in ("model_types", "rope"):
            if key in old:
                history[key] = old[key]


def build(libs: list[str], wheels: Path, output: Path | None = None, offline: bool = False,
          extract_only: bool = False, start: str | None = None, drop_over_mb: float | None = None) -> dict:
    output = output or Path(api_history_path())
    per_version: dict[str, list[dict]] = {}
    # the other libraries' extractions are needed too: a trl config inherits transformers' fields
    for lib in LIBRARIES:
        if extract_only and lib not in libs:
            continue
        per_version[lib] = library_releases(lib, wheels, online=not offline and lib in libs,
                                            start=start if extract_only else None, drop_over_mb=drop_over_mb,
                                            cache_only=not extract_only and lib not in libs)
    if extract_only:
        return {}
    unread = unread_externals(per_version, libs)
    if unread:
        raise SystemExit("the rebuilt libraries inherit from libraries with no cached extraction (" + "; ".join(
            f"{lib} from {', '.join(sorted(others))}" for lib, others in sorted(unread.items()))
            + "): their inherited parameters and members would be missing; extract those first "
            "(python -m kb.apidrift build --extract-only --lib ...) or rebuild them too")
    for lib, records in per_version.items():  # transformers' per-model modules' constants (light.py)
        if lib not in libs:  # a library kept as shipped: its scans only from their caches, never from a file
            wheels_of = Path("/nonexistent")
        else:
            wheels_of = wheels
        added = add_constants(lib, targets()[lib], records, lambda version, lib=lib, w=wheels_of: find_wheel(lib, version, w))
        if added:
            print(f"{lib}: {added} names of top-level assignments added to light modules' exports", file=sys.stderr)
        added = add_facts(lib, records, lambda version, lib=lib, w=wheels_of: find_wheel(lib, version, w))
        if added:  # huggingface_hub's @_deprecate_method (decorated.py)
            print(f"{lib}: {added} (release, fact) deprecations of a decorator added", file=sys.stderr)
        added = add_members(lib, records, lambda version, lib=lib, w=wheels_of: find_wheel(lib, version, w))
        if added:  # a few model families' classes' members (modelclasses.py)
            print(f"{lib}: {added} (release, class) member records added for the model families", file=sys.stderr)
        added = add_keywords(lib, records, lambda version, lib=lib, w=wheels_of: find_wheel(lib, version, w))
        if added:  # huggingface_hub's @validate_hf_hub_args accepting use_auth_token (validated.py)
            print(f"{lib}: {added} (release, callable) keywords a decorator accepts added", file=sys.stderr)
        added = resolve_defaults(lib, records, lambda version, lib=lib, w=wheels_of: find_wheel(lib, version, w))
        if added:  # TrainingArguments' `default=default_optim` (namedefaults.py)
            print(f"{lib}: {added} (release, parameter) defaults written as a module-level name resolved", file=sys.stderr)
    history = merge(per_version)
    for lib, entry in history["libraries"].items():
        annotate(entry, _yanked(lib))
    if set(libs) != set(LIBRARIES) and output.exists():
        with gzip.open(output, "rt", encoding="utf-8") as f:
            keep_shipped(history, json.load(f), libs)
    text = json.dumps(pack(history), separators=(",", ":"), sort_keys=True)
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
    b.add_argument("--extract-only", action="store_true",
                   help="fetch and extract the named libraries into the cache, write nothing (parallel builds)")
    b.add_argument("--output", type=Path, default=None, help="default: tables/api-history.json.gz")
    b.add_argument("--from", dest="start", default=None, help="with --extract-only: begin at this minor (e.g. 4.52)")
    b.add_argument("--drop-wheels-over", dest="drop_over_mb", type=float, default=None, metavar="MB",
                   help="delete a fetched file over MB megabytes once its minor is read (the extraction is cached)")
    args = parser.parse_args(argv)
    args.output = args.output or Path(api_history_path())
    history = build(args.lib or list(LIBRARIES), args.wheels, args.output, args.offline, args.extract_only, args.start,
                    args.drop_over_mb)
    if args.extract_only:
        return 0
    for lib, entry in history["libraries"].items():
        v = entry["versions"]
        print(f"{lib}: {len(v)} releases, {v[0]}..{v[-1]}" if v else f"{lib}: none")
    print(f"wrote {args.output} ({args.output.stat().st_size / 1e6:.2f} MB)")
    return 0
