"""Merge per-version extractions into the compact history shipped in tables/api-history.json.gz.

Layout of history.json.gz (version indices refer to that library's "versions" list; a range string
such as "0-16,20" is a set of indices):
  {"format": 1, "libraries": {lib: {
      "versions": [...], "built": [...],                       # wheel dates, same order
      "modules": {range: "mod mod ..."},                        # modules present in the wheel
      "exports": {module: {range: "name name ..."}},
      "params": {path: {"present": range, "params": [[name, range], ...]}},
      "renames": [{"kind", "owner", "old", "new", "since", "until", "message", "seen": range}]}},
   "model_types": {range: "type type ..."},                     # on transformers' versions
   "rope": {"messages": [[text, range]], "rope_types": {range: "..."}}}
"""

from __future__ import annotations

import bisect
from collections import defaultdict

from kb.apidrift.ranges import encode


def _group(presence: dict[str, set[int]]) -> dict[str, str]:
    by_range: dict[str, list[str]] = defaultdict(list)
    for name, indices in presence.items():
        by_range[encode(indices)].append(name)
    return {r: " ".join(sorted(names)) for r, names in sorted(by_range.items())}


def _contemporary(dates: list[str], date: str) -> int:
    """Index of the newest release built on or before `date` (the first release when none)."""
    return max(bisect.bisect_right(dates, date) - 1, 0)


def _resolved_params(per_version: dict[str, list[dict]], lib: str, i: int, path: str, depth: int = 0) -> list[str] | None:
    entry = per_version[lib][i]["params"].get(path)
    if entry is None:
        return None
    names = list(entry["params"])
    for external in entry["external"]:
        other = external.split(".")[0]
        if not per_version.get(other) or depth > 4:
            continue
        dates = [e["built"] for e in per_version[other]]
        j = _contemporary(dates, per_version[lib][i]["built"])
        extra = _resolved_params(per_version, other, j, external, depth + 1)
        names += [n for n in extra or [] if n not in names]
    return names


def merge_library(per_version: dict[str, list[dict]], lib: str) -> dict:
    releases = per_version[lib]
    modules: dict[str, set[int]] = defaultdict(set)
    exports: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    params: dict[str, dict] = {}
    for i, release in enumerate(releases):
        for module in release["modules"]:
            modules[module].add(i)
        for module, names in release["exports"].items():
            for name in names:
                exports[module][name].add(i)
    paths = dict.fromkeys(p for release in releases for p in release["params"])
    for path in paths:
        present: set[int] = set()
        order: list[str] = []
        seen: dict[str, set[int]] = defaultdict(set)
        for i in reversed(range(len(releases))):  # newest first: its order wins
            names = _resolved_params(per_version, lib, i, path)
            if names is None:
                continue
            present.add(i)
            for name in names:
                if name not in seen:
                    order.append(name)
                seen[name].add(i)
        params[path] = {"present": encode(present), "params": [[n, encode(seen[n])] for n in order]}
    return {
        "versions": [r["version"] for r in releases],
        "built": [r["built"] for r in releases],
        "modules": _group(modules),
        "exports": {m: _group(names) for m, names in sorted(exports.items())},
        "params": params,
        "renames": _renames(releases, params),
    }


def _renames(releases: list[dict], params: dict[str, dict]) -> list[dict]:
    from kb.apidrift.ranges import decode

    grouped: dict[tuple, dict] = {}
    for i, release in enumerate(releases):
        for fact in release["facts"]:
            key = (fact["kind"], fact["owner"], fact["old"])
            entry = grouped.setdefault(key, {**fact, "seen": set()})
            entry["seen"].add(i)
            if fact.get("new") and not entry.get("new"):
                entry["new"] = fact["new"]
            # prefer a text written by the library over the one kb composes for a decorator
            if entry["message"].startswith("deprecate_kwarg(") and not fact["message"].startswith("deprecate_kwarg("):
                entry["message"] = fact["message"]
    out = []
    last = len(releases) - 1
    for (kind, owner, old), entry in grouped.items():
        seen = entry.pop("seen")
        accepted = None
        if kind == "param" and owner in params:
            for name, r in params[owner]["params"]:
                if name == old:
                    accepted = decode(r)
        if accepted:
            until_index = max(accepted)
        else:
            until_index = max(seen)
        if kind == "param" and not entry.get("new"):
            config = _paired_config(owner)
            if config in params and any(name == old for name, _r in params[config]["params"]):
                entry["new"] = f"{config}.{old}"  # the argument moved from the trainer to its config
        entry["since"] = releases[min(seen)]["version"]
        entry["until"] = None if until_index == last else releases[until_index]["version"]
        entry["seen"] = encode(seen)
        out.append(entry)
    out.sort(key=lambda e: (e["owner"], e["old"], e["kind"]))
    return out


def _paired_config(owner: str) -> str:
    """The config class a trainer's arguments move to: trl.SFTTrainer -> trl.SFTConfig, Trainer -> TrainingArguments."""
    if owner in ("transformers.Trainer", "transformers.Seq2SeqTrainer"):
        return owner.replace("Trainer", "TrainingArguments")
    if owner.endswith("Trainer"):
        return owner[: -len("Trainer")] + "Config"
    return ""


def merge_transformers_facts(releases: list[dict]) -> tuple[dict, dict]:
    types: dict[str, set[int]] = defaultdict(set)
    messages: dict[str, set[int]] = defaultdict(set)
    rope_types: dict[str, set[int]] = defaultdict(set)
    for i, release in enumerate(releases):
        for t in release["model_types"]:
            types[t].add(i)
        for text in release["rope"].get("messages", []):
            messages[text].add(i)
        for t in release["rope"].get("rope_types", []):
            rope_types[t].add(i)
    rope = {"messages": [[text, encode(idx)] for text, idx in messages.items()], "rope_types": _group(rope_types)}
    return _group(types), rope


def merge(per_version: dict[str, list[dict]]) -> dict:
    history: dict = {"format": 1, "libraries": {}}
    for lib in sorted(per_version):
        history["libraries"][lib] = merge_library(per_version, lib)
    if "transformers" in per_version:
        history["model_types"], history["rope"] = merge_transformers_facts(per_version["transformers"])
    return history
