"""Members of the classes of a few transformers model families (`LlamaModel`, `LlamaAttention`, `Qwen2DecoderLayer`).

From 4.0 transformers' per-model modules are read for names only (exports.py's light modules): a full extraction of
all of them in every release takes hours, and the targets' entry cannot list them without invalidating every cached
transformers extraction (its digest is part of the cache key). So "'LlamaModel' object has no attribute
'_prepare_decoder_attention_mask'" or "'LlamaAttention' object has no attribute 'rotary_emb'" found no member
record. This layer parses, at build time, the modeling module of the families below in each release whose wheel is
cached (`ast`, a dozen modules per release, cached under ~/.cache/kb/apidrift/extract/<lib>-<version>-models-v<N>.json),
and adds their classes' members to the release's record as extract.py would: a class's own members
(members.own_members: methods, class attributes, `self.x = ...` in its methods) and those of its bases. A base is
followed when it is a class of the same module, a class the record already tracks (`PreTrainedModel`,
`GenerationMixin`: their members, and their external bases), or `nn.Module` (external `torch.nn.Module`, resolved at
merge time against torch, as for every class). A class with any other base (`GradientCheckpointingLayer`, a mixin of
another module) is left out of that release: its members are not all known, and a member it lacks must never be read
as absent.

A release without a cached wheel (a probed patch) takes its minor's nearest later release, as light.py does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from kb.apidrift.members import own_members
from kb.apidrift.releases import CACHE
from kb.apidrift.scancache import cached, later_in_minor
from kb.apidrift.wheel import Wheel

VERSION = 1

# The model families of the fine-tuning reports (model-type folders of transformers.models); each added after 4.0.
FAMILIES = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "gemma", "gemma2", "gemma3", "phi", "phi3",
            "falcon", "gpt_neox", "opt", "bloom", "qwen2_vl", "llava")
_TORCH_MODULE = ("nn.Module", "torch.nn.Module", "Module")


def modules(lib: str) -> list[str]:
    return [f"{lib}.models.{family}.modeling_{family}" for family in FAMILIES] if lib == "transformers" else []


def scan(lib: str, wheel_path: Path) -> dict[str, dict[str, dict[str, list[str]]]]:
    """{module: {class: {"own": [members], "bases": [base source text]}}} of one wheel's chosen modules."""
    wheel = Wheel(wheel_path, lib)
    out: dict[str, dict[str, dict[str, list[str]]]] = {}
    for module in modules(lib):
        if not wheel.has(module):
            continue
        tree = wheel.tree(module)
        if tree is None:
            continue
        classes = {}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = {"own": sorted(own_members(node)), "bases": [ast.unparse(b) for b in node.bases]}
        out[module] = classes
    return out


def cache_path(lib: str, version: str, cache: Path = CACHE) -> Path:
    return cache / "extract" / f"{lib}-{version}-models-v{VERSION}.json"


def cached_scan(lib: str, version: str, wheel: Callable[[], Path | None], cache: Path = CACHE) -> dict | None:
    return cached(cache_path(lib, version, cache), wheel, lambda p: scan(lib, p))


def resolve(lib: str, module: str, classes: dict[str, dict[str, list[str]]], tracked: dict[str, dict],
            exported: set[str]) -> dict[str, dict]:
    """{class path: {"members", "external"}} of one module's classes whose bases are all known (see the module
    docstring). `tracked`: the record's member table; `exported`: the names the top level exports (a class it
    exports is recorded under its public path, `transformers.LlamaModel`, as extract.py records classes)."""
    done: dict[str, tuple[set[str], list[str]] | None] = {}

    def members_of(name: str, depth: int = 0) -> tuple[set[str], list[str]] | None:
        if name in done:
            return done[name]
        done[name] = None  # a cycle stays unknown
        if depth > 10:
            return None
        names, external = set(classes[name]["own"]), []
        for base in classes[name]["bases"]:
            last = base.rsplit(".", 1)[-1]
            if base in _TORCH_MODULE:
                found: tuple[set[str], list[str]] | None = (set(), ["torch.nn.Module"])
            elif last in classes and last != name:
                found = members_of(last, depth + 1)
            elif f"{lib}.{last}" in tracked:
                entry = tracked[f"{lib}.{last}"]
                found = (set(entry["members"]), list(entry.get("external", [])))
            else:
                found = None
            if found is None:
                return None
            names |= found[0]
            external += [e for e in found[1] if e not in external]
        done[name] = (names, external)
        return done[name]

    out: dict[str, dict] = {}
    for name in classes:
        if name.startswith("_"):
            continue
        resolved = members_of(name)
        if resolved is not None:
            path = f"{lib}.{name}" if name in exported else f"{module}.{name}"
            out[path] = {"members": sorted(resolved[0]), "external": resolved[1]}
    return out


def add_members(lib: str, records: list[dict], wheel: Callable[[str], Path | None]) -> int:
    """Add the chosen families' classes to each record's members (new dicts: patch records share their minor's),
    leaving any class the record already tracks as it is. Returns the number of (release, class) added."""
    if not modules(lib):
        return 0
    scans = {r["version"]: cached_scan(lib, r["version"], lambda v=r["version"]: wheel(v)) for r in records}
    added = 0
    for i, record in enumerate(records):
        found = scans[record["version"]]
        if found is None:  # the minor's nearest later release with a wheel
            later = later_in_minor(records, i)
            found = next((scans[v] for v in later if scans[v] is not None), None)
        if not found:
            continue
        tracked = dict(record.get("members", {}))
        exported = set(record.get("exports", {}).get(lib, []))
        for module, classes in sorted(found.items()):
            if module not in record.get("exports", {}):
                continue  # not a module of this release as the extraction read it
            for path, entry in resolve(lib, module, classes, record.get("members", {}), exported).items():
                if path not in tracked:
                    tracked[path] = entry
                    added += 1
        record["members"] = tracked
    return added
