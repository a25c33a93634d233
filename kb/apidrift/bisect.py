"""The exact release of a change: bisect the patches of the minor in which it happened.

The latest patch of every minor is read in full (kb/apidrift/extract.py). Between the last patch of one
minor (A) and that of the next (B), a fact can change in any of B's patches: B.0, B.1, ... The facts that
differ between A's and B's extractions (the exports of a module, a callable's parameters, defaults and
Literal values, a class's members, an enum's values, transformers' model types) are read again from B.0;
those B.0 does not yet have in B's final form are bisected over B.1 .. B's last (each probe reads only the
facts still open), so a minor with k earlier patches costs about 1 + log2(k) probes, not k. The rest are
taken as B's (a fact equal in A and B is assumed unchanged in between; a fact is assumed to change once
inside a minor). Every patch of B is then written out, the ones never probed with each fact's value
before or after its change. So `removed in` names B.2 when B.2 removed it, not B's latest patch.
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

from kb.apidrift import members, transformers_facts
from kb.apidrift.exports import ModuleIndex
from kb.apidrift.extract import EXTRACTOR
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


def bisect_minor(patches: list[str], latest: dict, keys: dict[str, list[str]], read, built: dict[str, str]) -> list[dict]:
    """Extractions of every earlier patch of a minor (ascending), given its last patch `latest` and the keys
    that changed across the minor. ``read(version, keys)`` probes one patch for some keys (probe() shaped);
    ``built`` gives each patch's upload date for the patches never read."""
    if not patches:
        return []
    pairs = [(section, key) for section, names in keys.items() for key in names]
    last = len(patches)  # index of `latest` in the sequence patches + [latest]
    probed: dict[int, dict] = {}
    boundary: dict[tuple[str, str], tuple[int, object]] = {}  # key -> (first index with the final value, value before)

    def solve(open_pairs: list[tuple[str, str]], lo: int, lo_values: dict, hi: int) -> None:
        """Each pair differs from its final value at index lo and has it at hi."""
        if not open_pairs:
            return
        if hi - lo <= 1:
            for pair in open_pairs:
                boundary[pair] = (hi, lo_values[pair])
            return
        mid = (lo + hi) // 2
        result = read(patches[mid], _as_keys(open_pairs))
        probed.setdefault(mid, result)
        final = [p for p in open_pairs if value(result, *p) == value(latest, *p)]
        solve(final, lo, lo_values, mid)
        rest = [p for p in open_pairs if p not in final]
        solve(rest, mid, {**lo_values, **{p: value(result, *p) for p in rest}}, hi)

    first = read(patches[0], keys)
    probed[0] = first
    settled = [p for p in pairs if value(first, *p) == value(latest, *p)]
    for pair in settled:
        boundary[pair] = (0, None)
    solve([p for p in pairs if p not in settled], 0, {p: value(first, *p) for p in pairs}, last)

    out: list[dict] = []
    for j, version in enumerate(patches):
        # a shallow copy whose changed sections are copied before they are written: the patches of a
        # minor share everything else with its last release (a transformers release is ~1 MB of JSON)
        release = {**latest, **{section: dict(latest.get(section, {})) for section in keys if section not in WHOLE}}
        release.update({"version": version, "probed": True, "built": (probed[j]["built"] if j in probed else built.get(version, latest["built"]))})
        if j in probed:
            release["modules"] = probed[j]["modules"]
        for pair, (b, before) in boundary.items():
            if j < b:
                _set(release, *pair, before)
                if pair[0] == "exports" and before is None and pair[1] in release["modules"] and j not in probed:
                    release["modules"] = [m for m in release["modules"] if m != pair[1]]
                elif pair[0] == "exports" and before is not None and pair[1] not in release["modules"]:
                    release["modules"] = sorted(release["modules"] + [pair[1]])
        out.append(release)
    return out


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
    index = ModuleIndex(wheel, tuple(spec.get("skip_modules_detail", [])), tuple(spec.get("detailed_modules", [])))
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


def cached_probe(lib: str, version: str, wheel_path: Path, latest: dict, keys: dict[str, list[str]],
                 cache: Path = CACHE) -> dict:
    digest = hashlib.sha1(json.dumps(keys, sort_keys=True).encode()).hexdigest()[:12]
    path = cache / "extract" / f"{lib}-{version}-probe-{digest}-v{EXTRACTOR}.json"
    if path.exists():
        return json.loads(path.read_text())
    result = probe(lib, version, wheel_path, latest, keys)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return result
