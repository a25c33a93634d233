"""Merge per-version extractions into the compact history shipped in tables/api-history.json.gz.

Layout of history.json.gz (version indices refer to that library's "versions" list; a range string
such as "0-16,20" is a set of indices):
  {"format": 2, "libraries": {lib: {
      "versions": [...], "built": [...],                       # every covered release, ascending; wheel dates
      "probed": range,                                          # versions probed, not read in full (bisect.py)
      "modules": {range: "mod mod ..."},                        # modules present in the wheel
      "exports": {module: {range: "name name ..."}},
      "params": {path: {"present": range, "params": [[name, range], ...]}},
      "renames": [{"kind", "owner", "old", "new", "since", "until", "first_without", "message", "seen": range}],
      "members": {class: {"present": range, "names": {range: "name name ..."}}},
      "enums": {enum: {"present": range, "values": [[value, range], ...]}},
      "defaults": {path: {param: [[source text, range], ...]}},
      "literals": {path: {param: [[value, range], ...]}}}},
   "model_types": {range: "type type ..."},                     # on transformers' versions
   "rope": {"messages": [[text, range]], "rope_types": {range: "..."}}}
"""

from __future__ import annotations

from collections import defaultdict

from kb.apidrift.ranges import encode


def _group(presence: dict[str, set[int]]) -> dict[str, str]:
    by_range: dict[str, list[str]] = defaultdict(list)
    for name, indices in presence.items():
        by_range[encode(indices)].append(name)
    return {r: " ".join(sorted(names)) for r, names in sorted(by_range.items())}


def _contemporary(dates: list[str], date: str) -> int:
    """Index of the newest release built on or before `date` (the first release when none). Patch releases
    of an older minor may come after a newer minor's first release: the dates are not sorted."""
    best = None
    for i, d in enumerate(dates):
        if d <= date and (best is None or d >= dates[best]):
            best = i
    return best if best is not None else min(range(len(dates)), key=lambda i: dates[i])


def _external(table: dict, path: str):
    """table[path], else the entry of the shortest key with the same last name (`torch.nn.Module` for a base
    written `torch.nn.modules.module.Module`, `transformers.PushToHubMixin` for `transformers.utils.PushToHubMixin`)."""
    if path in table:
        return table[path]
    last = "." + path.rsplit(".", 1)[-1]
    keys = sorted((k for k in table if k.endswith(last)), key=lambda k: (k.count("."), k))
    return table[keys[0]] if keys else None


def _resolved(per_version: dict[str, list[dict]], lib: str, i: int, path: str, key: str, depth: int = 0
              ) -> list[str] | None:
    """The names under ``key`` ("params" of a callable, "members" of a class) of release ``i``'s entry for ``path``,
    then those of each entry it names as ``external`` in another library (a base class, a wrapped callable), read in
    that library's release built at the same time (up to 5 levels): own names first, each once. None when the release
    has no entry for ``path``."""
    table = per_version[lib][i].get(key, {})
    entry = table.get(path) if depth == 0 else _external(table, path)
    if entry is None:
        return None
    names = list(entry[key])
    for external in entry["external"]:
        other = external.split(".")[0]
        if not per_version.get(other) or depth > 4:
            continue
        j = _contemporary([e["built"] for e in per_version[other]], per_version[lib][i]["built"])
        extra = _resolved(per_version, other, j, external, key, depth + 1)
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
            names = _resolved(per_version, lib, i, path, "params")
            if names is None:
                continue
            present.add(i)
            for name in names:
                if name not in seen:
                    order.append(name)
                seen[name].add(i)
        params[path] = {"present": encode(present), "params": [[n, encode(seen[n])] for n in order]}
    entry = {
        "versions": [r["version"] for r in releases],
        "built": [r["built"] for r in releases],
        "probed": encode([i for i, r in enumerate(releases) if r.get("probed")]),
        "members": _members(per_version, lib),
        "enums": _enums(releases),
        "defaults": _by_param(releases, "defaults"),
        "literals": _by_param(releases, "literals"),
        "modules": _group(modules),
        "exports": {m: _group(names) for m, names in sorted(exports.items())},
        "params": params,
        "renames": _renames(releases, params),
    }
    entry["renames"] += _lineage(entry, {(r["owner"], r["old"]) for r in entry["renames"]})
    entry["renames"].sort(key=lambda e: (e["owner"], e["old"], e["kind"]))
    return entry


_GENERIC = {"use", "set", "get", "has", "with", "for", "from", "the", "and", "enable", "disable", "supports", "is"}


def _tokens(name: str) -> set[str]:
    import re

    return {t.lower() for t in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name) if len(t) > 2} - _GENERIC


def _same_name(old: str, new: str) -> bool:
    """Names that share at least half of the longer one's words (generic verbs aside) and their first word."""
    a, b = _tokens(old), _tokens(new)
    if not a or not b or old.split("_")[0] != new.split("_")[0]:
        return False
    return len(a & b) * 2 >= max(len(a), len(b))


def _lineage(entry: dict, stated: set[tuple[str, str]]) -> list[dict]:
    """Renames no message states, read from the history itself: in one release a parameter (or member) of an
    owner went and exactly one other came, with the same first word and at least half their words shared
    (`max_seq_length` -> `max_length`; not `use_flash_attention_2` -> `use_kernels`, nor `tokenizer` ->
    `processing_class`, which a message states). Marked ``"source": "lineage"``."""
    from kb.apidrift.ranges import decode

    versions = entry["versions"]
    out: list[dict] = []
    tables = [("param", path, decode(spec["present"]), {n: decode(r) for n, r in spec["params"]})
              for path, spec in entry["params"].items()]
    for path, spec in entry["members"].items():
        names: dict[str, set[int]] = {}
        for r, text in spec["names"].items():
            for n in text.split():
                names[n] = decode(r)
        tables.append(("member", path, decode(spec["present"]), names))
    for kind, owner, present, names in tables:
        ordered = sorted(present)
        for before, after in zip(ordered, ordered[1:]):
            gone = [n for n, idx in names.items() if before in idx and after not in idx]
            came = [n for n, idx in names.items() if after in idx and before not in idx]
            if len(gone) != 1 or len(came) != 1 or (owner, gone[0]) in stated or gone[0].startswith("_"):
                continue
            old, new = gone[0], came[0]
            if not (_same_name(old, new) or old in new or new in old):
                continue
            out.append({"kind": kind, "owner": owner, "old": old, "new": new, "source": "lineage",
                        "message": f"`{old}` went and `{new}` came in the same release ({versions[after]})",
                        "since": versions[after], "until": versions[before], "first_without": versions[after],
                        "seen": encode([after])})
    return out


def _members(per_version: dict[str, list[dict]], lib: str) -> dict[str, dict]:
    releases = per_version[lib]
    out: dict[str, dict] = {}
    for path in sorted({p for r in releases for p in r.get("members", {})}):
        present: set[int] = set()
        seen: dict[str, set[int]] = defaultdict(set)
        for i in range(len(releases)):
            names = _resolved(per_version, lib, i, path, "members")
            if names is None:
                continue
            present.add(i)
            for name in names:
                seen[name].add(i)
        out[path] = {"present": encode(present), "names": _group(seen)}
    return out


def _enums(releases: list[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in sorted({p for r in releases for p in r.get("enums", {})}):
        present: set[int] = set()
        seen: dict[str, set[int]] = {}
        for i, r in enumerate(releases):
            values = r.get("enums", {}).get(path)
            if values is None:
                continue
            present.add(i)
            for v in values:
                seen.setdefault(v, set()).add(i)
        out[path] = {"present": encode(present), "values": [[v, encode(idx)] for v, idx in seen.items()]}
    return out


def _by_param(releases: list[dict], key: str) -> dict[str, dict[str, list]]:
    """defaults / literals: {path: {param: [[value, range], ...]}}, values in order of first appearance."""
    table: dict[str, dict[str, dict[str, set[int]]]] = {}
    for i, r in enumerate(releases):
        for path, per_param in r.get(key, {}).items():
            for param, value in per_param.items():
                for v in (value if isinstance(value, list) else [value]):
                    table.setdefault(path, {}).setdefault(param, {}).setdefault(v, set()).add(i)
    return {path: {param: [[v, encode(idx)] for v, idx in values.items()] for param, values in sorted(params.items())}
            for path, params in sorted(table.items())}


def _renames(releases: list[dict], params: dict[str, dict]) -> list[dict]:
    from kb.apidrift.ranges import decode

    grouped: dict[tuple, dict] = {}
    for i, release in enumerate(releases):
        for fact in release["facts"]:
            fact = _keyword_opening(fact, params)
            # a default's messages are kept apart: torch 2.4 warns the default "will be flipped", 2.6 says it was
            key = (fact["kind"], fact["owner"], fact["old"]) + ((fact["message"],) if fact["kind"] == "default" else ())
            entry = grouped.setdefault(key, {**fact, "seen": set()})
            entry["seen"].add(i)
            if fact.get("new") and not entry.get("new"):
                entry["new"] = fact["new"]
            # prefer a text written by the library over the one kb composes for a decorator
            if entry["message"].startswith("deprecate_kwarg(") and not fact["message"].startswith("deprecate_kwarg("):
                entry["message"] = fact["message"]
    out = []
    last = len(releases) - 1
    for (kind, owner, old, *_message), entry in grouped.items():
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
        method = owner.rsplit(".", 1)[-1]
        if kind == "name" and method != old and not method.startswith("_") and _same_name(old, method):
            # the message misnames the method it sits in (transformers' Cache.get_max_length says "`get_max_cache()`
            # is deprecated"): the name that goes is the method's
            entry["said"], entry["old"] = old, method
        entry["since"] = releases[min(seen)]["version"]
        entry["until"] = None if until_index == last else releases[until_index]["version"]
        entry["first_without"] = None if until_index == last else releases[until_index + 1]["version"]
        entry["seen"] = encode(seen)
        out.append(entry)
    out.sort(key=lambda e: (e["owner"], e["old"], e["kind"]))
    return out


def _keyword_opening(fact: dict, params: dict[str, dict] | None = None) -> dict:
    """A "name" fact read from a message that opens with the name, unquoted (extractor 7), whose name is no part of
    the callable the message sits in, is a keyword of that callable, as the quoted message of a later release says:
    torch 1.8-2.3's profile warns "use_cuda is deprecated, use activities argument instead", 2.4 "`use_cuda` is
    deprecated, use `activities` argument instead" (a "param" fact), and ShardedTensor.gather's `enforce_dtype` alike.
    Read as one record, the keyword is dated from its first statement on and not "gone" where the wording changed
    (turn 42: the torch rebuild). The name a message opens with that is its owner (torch 2.3's sdp_kernel(), peft's
    prepare_model_for_int8_training, torch.btrifact) stays a name, and so does one the callable cannot take as a
    keyword (turn 43): where the history tracks the callable's parameters, one it never accepts; elsewhere a name that
    is not a lower-case identifier: a constant or an environment variable (transformers 4.39's
    "ALL_PRETRAINED_CONFIG_ARCHIVE_MAP is deprecated ..." sits in `_LazyLoadAllMappings._initialize`, the lazy mapping
    the module-level constant is; torch's TORCH_HUB and deepspeed's DS_EVOFORMER_GPU_ARCH are environment variables),
    a class (CamelCase)."""
    from kb.apidrift.deprecations import _UNQUOTED_OPENING

    opening = _UNQUOTED_OPENING.match(fact["message"]) if fact["kind"] == "name" else None
    if opening is None or opening.group(1).rsplit(".", 1)[-1] != fact["old"] or fact["old"] in fact["owner"].split("."):
        return fact  # not read from the opening (a name the message quotes later: `set_()`), or the owner's own name
    tracked = (params or {}).get(fact["owner"])
    if tracked is not None:
        keyword = any(name == fact["old"] for name, _r in tracked["params"])
    else:
        keyword = fact["old"] == fact["old"].lower()
    return {**fact, "kind": "param"} if keyword else fact


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
    history: dict = {"format": 2, "libraries": {}}
    for lib in sorted(per_version):
        history["libraries"][lib] = merge_library(per_version, lib)
    if "transformers" in per_version:
        history["model_types"], history["rope"] = merge_transformers_facts(per_version["transformers"])
    return history
