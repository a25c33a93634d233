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

The same parse records each class's `forward` signature (issue #25: model forward keywords). "forward() got an
unexpected keyword argument 'num_logits_to_keep'" (transformers 4.45.0 added it to the causal-LM forwards and
generate passes it; 4.50.0 renamed it `logits_to_keep`) or 'cache_position' (4.38.0) is raised by a model class
whose forward is older than the transformers that calls it. A class's forward is its own `def forward`, else that of
its first base in the same module that defines one; its parameters are read as params.function_params reads any
callable's (names, old names of `@deprecate_kwarg`, names read from `**kwargs`), and added to the release's
parameter table as `<class path>.forward`, so parameter history, lineage renames and the answers read them as they
read any callable's. A forward that also takes `**kwargs` accepts any other name as well: the table lists the names
it takes by name, as for every callable. A forward's `@deprecate_kwarg("num_logits_to_keep", version="4.50",
new_name="logits_to_keep")` is added to the release's facts as deprecations.py states a rename (kind param, the
decorator's source as its message), so the rename is recorded where both names were accepted for a while.

A release without a cached wheel (a probed patch) takes its minor's nearest later release, as light.py does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from kb.apidrift.members import own_members
from kb.apidrift.params import deprecated_kwargs, function_params
from kb.apidrift.releases import CACHE
from kb.apidrift.scancache import cached, scanned_records
from kb.apidrift.wheel import Wheel

VERSION = 3  # 2: each class's own forward parameters; 3: and its @deprecate_kwarg renames

# The model families of the fine-tuning reports (model-type folders of transformers.models); each added after 4.0.
FAMILIES = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "gemma", "gemma2", "gemma3", "phi", "phi3",
            "falcon", "gpt_neox", "opt", "bloom", "qwen2_vl", "llava")
_TORCH_MODULE = ("nn.Module", "torch.nn.Module", "Module")


def modules(lib: str) -> list[str]:
    return [f"{lib}.models.{family}.modeling_{family}" for family in FAMILIES] if lib == "transformers" else []


def _forward(node: ast.ClassDef) -> tuple[list[str], list[list[str]]] | None:
    """(parameters of the class's own `def forward`, self left out; [old, new, the decorator's source] of each
    `@deprecate_kwarg` on it), None when its body defines no forward."""
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "forward":
            renamed = [[old, new, ast.unparse(call)] for old, new, _v, call in deprecated_kwargs(item) if new]
            return function_params(item, method=True)[0], renamed
    return None


def scan(lib: str, wheel_path: Path) -> dict[str, dict[str, dict[str, list[str]]]]:
    """{module: {class: {"own": [members], "bases": [base source text], "forward": [params] (when the class defines
    one)}}} of one wheel's chosen modules."""
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
                forward = _forward(node)
                if forward is not None:
                    classes[node.name]["forward"] = forward[0]
                    if forward[1]:
                        classes[node.name]["forward_renamed"] = forward[1]
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


def forwards(classes: dict[str, dict]) -> dict[str, tuple[list[str], list[list[str]]]]:
    """{class name: (forward parameters, its @deprecate_kwarg renames)} of one module's classes: the class's own
    forward, else that of its first base in the module that has one (followed up the module's classes); classes
    with neither are left out."""
    out: dict[str, tuple[list[str], list[list[str]]]] = {}

    def find(name: str, depth: int = 0) -> tuple[list[str], list[list[str]]] | None:
        entry = classes.get(name)
        if entry is None or depth > 10:
            return None
        if "forward" in entry:
            return list(entry["forward"]), list(entry.get("forward_renamed", []))
        for base in entry["bases"]:
            last = base.rsplit(".", 1)[-1]
            if last in classes and last != name:
                found = find(last, depth + 1)
                if found is not None:
                    return found
        return None

    for name in classes:
        if not name.startswith("_"):
            found = find(name)
            if found is not None:
                out[name] = found
    return out


def add_members(lib: str, records: list[dict], wheel: Callable[[str], Path | None]) -> int:
    """Add the chosen families' classes to each record's members (new dicts: patch records share their minor's),
    leaving any class the record already tracks as it is. Returns the number of (release, class) added."""
    if not modules(lib):
        return 0
    added = 0
    for record, found in scanned_records(records, lambda v: cached_scan(lib, v, lambda: wheel(v))):
        tracked = dict(record.get("members", {}))
        params = dict(record.get("params", {}))
        facts = list(record.get("facts", []))
        have = {(f["kind"], f["owner"], f["old"]) for f in facts}
        exported = set(record.get("exports", {}).get(lib, []))
        for module, classes in sorted(found.items()):
            if module not in record.get("exports", {}):
                continue  # not a module of this release as the extraction read it
            for path, entry in resolve(lib, module, classes, record.get("members", {}), exported).items():
                if path not in tracked:
                    tracked[path] = entry
                    added += 1
            for name, (names, renamed) in forwards(classes).items():
                path = (f"{lib}.{name}" if name in exported else f"{module}.{name}") + ".forward"
                if path not in params:
                    params[path] = {"params": names, "external": [], "kind": "function"}
                for old, new, source in renamed:  # the decorator's own words: a stated rename, as deprecations.py's
                    if ("param", path, old) not in have:
                        facts.append({"kind": "param", "owner": path, "old": old, "new": new, "message": source})
                        have.add(("param", path, old))
        record["members"] = tracked
        record["params"] = params
        record["facts"] = facts
    return added
