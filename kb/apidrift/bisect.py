"""The exact release of a change: bisect the patches of the minor in which it happened.

The latest patch of every minor is read in full (kb/apidrift/extract.py). Between the last patch of one
minor (A) and that of the next (B), a fact can change in any of B's patches: B.0, B.1, ... The facts that
differ between A's and B's extractions (the exports of a module, a callable's parameters, defaults and
Literal values, a class's members, an enum's values, transformers' model types) are read again from B.0;
those B.0 does not yet have in B's final form are bisected over B.1 .. B's last (each probe reads only the
facts still open), so a fact changed once in a minor with k earlier patches costs about 1 + log2(k) probes,
not k. A fact may change more than once inside a minor (a package's export set grows patch by patch): a
probe that finds a third value, neither the span's start's nor its end's, splits the search in two, so each
change is pinned to its own patch (and every probed patch keeps the values it was read with). The rest are
taken as B's (a fact equal in A and B is assumed unchanged in between; a change undone inside a span,
A -> B -> A, is not seen by the bisection: for export sets, reread_undone reads again in each patch the modules whose
source differs from B's last patch). Every patch of B is then written out, the ones never probed with the value of
the span they fall in. So `removed in` names B.2 when B.2 removed it, not B's latest patch.

The messages a release states (deprecations, renames, removals, default changes: kb/apidrift/deprecations.py)
are bisected the same way, in a pass of their own (date_facts, probe_facts: only the modules whose text
holds a message's old name are parsed), so a deprecation's `since` is the first patch whose source states
it and the release before it the last that does not.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from kb.apidrift import members, transformers_facts
from kb.apidrift.exports import ModuleIndex
from kb.apidrift.extract import cache_version
from kb.apidrift.history import targets
from kb.apidrift.params import Resolver
from kb.apidrift.releases import CACHE
from kb.apidrift.wheel import Wheel

SECTIONS = ("exports", "params", "defaults", "literals", "members", "enums")
WHOLE = ("model_types", "rope")  # transformers' release-wide facts: one key each


def changed(before: dict, after: dict) -> dict[str, list[str]]:
    """{section: keys whose value differs between two extractions} (a key missing on one side differs)."""
    out: dict[str, list[str]] = {}
    for section in SECTIONS:
        a, b = before.get(section, {}), after.get(section, {})
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        if keys:
            out[section] = keys
    for section in WHOLE:
        if before.get(section) != after.get(section):
            out[section] = ["_"]
    return out


def value(release: dict, section: str, key: str):
    return release.get(section) if section in WHOLE else release.get(section, {}).get(key)


def _set(release: dict, section: str, key: str, found) -> None:
    if section in WHOLE:
        release[section] = found
    elif found is None:
        release.setdefault(section, {}).pop(key, None)
    else:
        release.setdefault(section, {})[key] = found


Pair = tuple[str, str]


def _segments(patches: list[str], pairs: list[Pair], final: dict, read, value_of=value
              ) -> tuple[dict[Pair, dict[int, object]], dict[int, dict]]:
    """Each (section, key) pair's value at every index of `patches` + [the minor's last release `final`],
    as {pair: {index: value}}: the value at index j is the one at the greatest known index <= j. And the
    probes read {index: result}. ``read(version, keys)`` probes one patch for some keys; patches[0] is read
    for every pair, then every span whose two ends differ is halved (each probe reads only the pairs whose
    ends differ there), until each change is pinned to its patch.

    A value may change several times inside a minor: the export set of a package's `__init__` grows patch by
    patch (trl 0.7.2 added `RewardConfig`, 0.7.4 `IterativeSFTTrainer`, 0.7.10 `setup_chat_format`). So a
    probe between the two ends that shows a third value splits the span in two, each searched for its own
    change; a single "first patch with the final value" would carry the value just before it back to every
    earlier patch, the probed ones included. Only a change undone inside one span (A -> B -> A) is not seen."""
    last = len(patches)  # index of `final` in the sequence patches + [final]
    probed: dict[int, dict] = {}
    first = read(patches[0], _as_keys(pairs))
    probed[0] = first
    known: dict[Pair, dict[int, object]] = {p: {0: value_of(first, *p), last: value_of(final, *p)} for p in pairs}

    def solve(open_pairs: list[Pair], lo: int, hi: int) -> None:
        """Each pair's value at lo differs from its value at hi."""
        if not open_pairs or hi - lo <= 1:
            return
        mid = (lo + hi) // 2  # strictly inside (lo, hi): no index is probed twice
        result = read(patches[mid], _as_keys(open_pairs))
        probed[mid] = result
        for pair in open_pairs:
            known[pair][mid] = value_of(result, *pair)
        solve([p for p in open_pairs if known[p][lo] != known[p][mid]], lo, mid)
        solve([p for p in open_pairs if known[p][mid] != known[p][hi]], mid, hi)

    solve([p for p in pairs if known[p][0] != known[p][last]], 0, last)
    return known, probed


def value_at(known: dict[int, object], j: int):
    """The value at index j of a pair's known values ({index: value}, index 0 always known)."""
    return known[max(k for k in known if k <= j)]


def bisect_minor(patches: list[str], latest: dict, keys: dict[str, list[str]], read, built: dict[str, str]) -> list[dict]:
    """Extractions of every earlier patch of a minor (ascending), given its last patch `latest` and the keys
    that changed across the minor. ``read(version, keys)`` probes one patch for some keys (probe() shaped);
    ``built`` gives each patch's upload date for the patches never read."""
    if not patches:
        return []
    pairs = [(section, key) for section, names in keys.items() for key in names]
    known, probed = _segments(patches, pairs, latest, read) if pairs else ({}, {0: read(patches[0], keys)})

    out: list[dict] = []
    for j, version in enumerate(patches):
        # a shallow copy whose changed sections are copied before they are written: the patches of a
        # minor share everything else with its last release (a transformers release is ~1 MB of JSON)
        release = {**latest, **{section: dict(latest.get(section, {})) for section in keys if section not in WHOLE}}
        release.update({"version": version, "probed": True, "built": (probed[j]["built"] if j in probed else built.get(version, latest["built"]))})
        if j in probed:
            release["modules"] = probed[j]["modules"]
        for pair, values in known.items():
            here = value_at(values, j)
            if here == value(latest, *pair):
                continue
            _set(release, *pair, here)
            if pair[0] == "exports" and here is None and pair[1] in release["modules"] and j not in probed:
                release["modules"] = [m for m in release["modules"] if m != pair[1]]
            elif pair[0] == "exports" and here is not None and pair[1] not in release["modules"]:
                release["modules"] = sorted(release["modules"] + [pair[1]])
        out.append(release)
    return out


# --- deprecation messages: the exact release that first (and last) states each --------------------------
def fact_key(fact: dict) -> str:
    """The identity merge.py groups a stated fact by: kind, owner, old name (and a default's message)."""
    parts = [fact["kind"], fact["owner"], fact["old"]] + ([fact["message"]] if fact["kind"] == "default" else [])
    return json.dumps(parts)


def changed_facts(before: dict, after: dict) -> list[str]:
    """Keys of the stated facts (deprecations, renames, removals, default changes) that one extraction has
    and the other has not."""
    a = {fact_key(f) for f in before.get("facts", [])}
    b = {fact_key(f) for f in after.get("facts", [])}
    return sorted(a ^ b)


def _fact_value(release: dict, _section: str, key: str) -> bool:
    return key in release["fact_keys"]


def date_facts(patches: list[dict], previous: dict, latest: dict, read) -> None:
    """Set the stated facts of a minor's earlier patches (`patches`, ascending, as bisect_minor made them,
    each sharing `latest`'s facts) to the ones each patch's source states: a message that the minor's last
    release has and the previous minor's last had not is bisected over the patches like any other key, so
    merge's `since` names the first patch that states it, not the minor's first patch; one the minor's last
    release no longer states is bisected the same way (merge's `until` for a message with no parameter).
    ``read(version, keys)`` gives {"fact_keys": {key: fact}} of one patch for some keys (probe_facts shaped).
    A message that came and went between two minors' last releases is not seen (as any other fact)."""
    keys = changed_facts(previous, latest)
    if not patches or not keys:
        return
    final = {"fact_keys": {fact_key(f): f for f in latest.get("facts", [])}}
    old = {fact_key(f): f for f in previous.get("facts", [])}
    known, probed = _segments([p["version"] for p in patches], [("facts", k) for k in keys], final, read, _fact_value)
    for j, release in enumerate(patches):
        facts = [f for f in release["facts"] if fact_key(f) not in keys]
        for (_section, key), values in known.items():
            if value_at(values, j):
                stated = probed[j]["fact_keys"].get(key) if j in probed else None
                facts.append(stated or final["fact_keys"].get(key) or old[key])
        release["facts"] = facts


def probe_facts(lib: str, version: str, wheel_path: Path, keys: list[str]) -> dict:
    """{"fact_keys": {key: fact}} for those of `keys` that this wheel's source states, read as extract() reads
    them (the same modules, owners under their public path) but parsing only the modules whose text holds
    one of the keys' old names (a stated old name is quoted, or is the decorated name, in its module's text)."""
    from kb.apidrift import deprecations
    from kb.apidrift.extract import read_module

    wanted = {key: json.loads(key) for key in keys}
    names = {parts[2] for parts in wanted.values()}
    wheel = Wheel(wheel_path, lib)
    spec = targets()[lib]
    index = ModuleIndex.for_spec(wheel, spec)
    top: set[str] | None = None
    found: dict[str, dict] = {}
    for module in wheel.modules():
        if not read_module(spec, module) or index.is_light(module):
            continue
        text = wheel.source(module) or ""
        if not any(name in text for name in names):
            continue
        tree = wheel.tree(module)
        if tree is None:
            continue
        stated = deprecations.facts(tree, module, {})
        public: dict[str, str] = {}
        for fact in stated:  # the owners' heads the top level exports: named by their public path, as extract() does
            if not fact["owner"].startswith(module + "."):
                continue
            name = fact["owner"][len(module) + 1:].split(".")[0]
            if top is None:
                top = index.exports(lib)
            binding = index.resolve(lib, name) if name in top else None
            if binding and binding[0] == "def" and binding[1] == module and binding[2] is not None:
                public[f"{module}.{name}"] = f"{lib}.{name}"
        if public:
            stated = deprecations.facts(tree, module, public)
        for fact in stated:
            key = fact_key(fact)
            if key in wanted:
                found.setdefault(key, fact)
    return {"version": version, "built": wheel.built, "fact_keys": found}


def cached_probe_facts(lib: str, version: str, wheel_path: Path | Callable[[], Path], keys: list[str],
                       cache: Path = CACHE) -> dict:
    """probe_facts(), cached; `wheel_path` may be a function fetching the file, called only on a cache miss."""
    digest = hashlib.sha1(json.dumps(sorted(keys)).encode()).hexdigest()[:12]
    path = cache / "extract" / f"{lib}-{version}-facts-{digest}-{cache_version(lib)}.json"
    if path.exists():
        return json.loads(path.read_text())
    result = probe_facts(lib, version, wheel_path() if callable(wheel_path) else wheel_path, keys)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return result


def _as_keys(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for section, key in pairs:
        out.setdefault(section, []).append(key)
    return {k: sorted(v) for k, v in sorted(out.items())}


def probe(lib: str, version: str, wheel_path: Path, latest: dict, keys: dict[str, list[str]]) -> dict:
    """An extraction of patch `version` shaped like extract()'s: `latest` (its minor's last patch) with the
    `keys` read from this wheel. Marked "probed"."""
    wheel = Wheel(wheel_path, lib)
    spec = targets()[lib]
    index = ModuleIndex.for_spec(wheel, spec)
    resolver = Resolver(index)
    result = json.loads(json.dumps(latest))  # deep copy
    result.update({"version": version, "built": wheel.built, "modules": wheel.modules(), "probed": True,
                   "parse_failures": wheel.parse_failures})
    present = set(wheel.modules())
    for module in keys.get("exports", []):
        result["exports"].pop(module, None)
        if module in present:
            result["exports"][module] = sorted(index.exports(module))
            extra = spec.get("extra_exports", {}).get(module)
            if extra and wheel.has(extra):
                result["exports"][module] = sorted(set(result["exports"][module]) | {
                    n for n in index.exports(extra) if not n.startswith("_")})
    callables = sorted(set(keys.get("params", [])) | set(keys.get("defaults", [])) | set(keys.get("literals", [])))
    for path in callables:
        for section in ("params", "defaults", "literals"):
            result[section].pop(path, None)
        sig = resolver.signature(path)
        if sig is None:
            continue
        result["params"][path] = {"params": sig.params, "external": sig.external, "kind": sig.kind}
        kept = {k: v for k, v in sig.defaults.items() if k in sig.params}
        if kept:
            result["defaults"][path] = kept
        values = {k: v for k, v in sig.literals.items() if k in sig.params}
        if values:
            result["literals"][path] = values
    for path in sorted(set(keys.get("members", [])) | set(keys.get("enums", []))):
        result["members"].pop(path, None)
        result["enums"].pop(path, None)
        found = resolver.find(path)
        if found is None or found[0] == "external" or not isinstance(found[1], ast.ClassDef):
            continue
        module, node = found
        names, external = members.class_members(resolver, module, node)
        if path in keys.get("members", []) or path in latest.get("members", {}):
            result["members"][path] = {"members": sorted(names), "external": external}
        values = members.enum_values(node)
        if values and (path in keys.get("enums", []) or path in latest.get("enums", {})):
            result["enums"][path] = values
    if lib == "transformers" and "model_types" in keys:
        result["model_types"] = transformers_facts.model_types(wheel)
    if lib == "transformers" and "rope" in keys:
        result["rope"] = transformers_facts.rope_checks(wheel)
    return result


def cached_probe(lib: str, version: str, wheel_path: Path | Callable[[], Path], latest: dict,
                 keys: dict[str, list[str]], cache: Path = CACHE) -> dict:
    """probe(), cached; `wheel_path` may be a function fetching the file, called only on a cache miss."""
    digest = hashlib.sha1(json.dumps(keys, sort_keys=True).encode()).hexdigest()[:12]
    path = cache / "extract" / f"{lib}-{version}-probe-{digest}-{cache_version(lib)}.json"
    if path.exists():
        return json.loads(path.read_text())
    result = probe(lib, version, wheel_path() if callable(wheel_path) else wheel_path, latest, keys)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return result


def text_diff(lib: str, patch_path: Path, last_path: Path) -> list[str]:
    """The modules whose source differs between a patch's file and its minor's last patch's (present in one only
    included): where a change undone inside the minor (A -> B -> A) can hide."""
    patch, last = Wheel(patch_path, lib), Wheel(last_path, lib)
    names = set(patch.modules()) | set(last.modules())
    return sorted(m for m in names if patch.source(m) != last.source(m))


def cached_text_diff(lib: str, version: str, last_version: str, fetch_patch: Callable[[], Path],
                     fetch_last: Callable[[], Path], cache: Path = CACHE) -> list[str] | None:
    """text_diff(), cached; None when a file is not at hand (offline, deleted) and the diff was never cached: the
    patch is then taken as the bisection left it."""
    path = cache / "extract" / f"{lib}-{version}-textdiff-{last_version}-{cache_version(lib)}.json"
    if path.exists():
        return json.loads(path.read_text())
    try:
        result = text_diff(lib, fetch_patch(), fetch_last())
    except (OSError, RuntimeError):
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return result


def reread_undone(patches: list[dict], latest: dict, previous: dict, read, diffs: dict[str, list[str] | None]) -> int:
    """Read again, in each earlier patch, the export sets of the recorded modules whose source differs from the minor's
    last patch and that the bisection did not read there: the bisection reads a fact only where its two ends differ,
    so a name gone in B.0 and back in B.2 (transformers 4.48.0-4.48.1's pytorch_utils.is_torch_greater_or_equal_than_1_13)
    was taken as present throughout. ``diffs``: {version: text_diff result, or None when unknown}. Returns how many
    (patch, module) export sets changed."""
    recorded = set(latest.get("exports", {})) | set(previous.get("exports", {}))
    changed_sets = 0
    for release in patches:
        modules = [m for m in diffs.get(release["version"]) or [] if m in recorded]
        if not modules:
            continue
        result = read(release["version"], {"exports": modules})
        if not result.get("probed"):  # an unreadable patch: read() gave the minor's last release back, unprobed
            continue
        exports = release["exports"] = dict(release.get("exports", {}))
        for module in modules:
            before, after = exports.get(module), result["exports"].get(module)
            if before != after:
                changed_sets += 1
                if after is None:
                    exports.pop(module, None)
                else:
                    exports[module] = after
        release["modules"] = result["modules"]
    return changed_sets
