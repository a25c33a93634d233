"""Extract one release's API facts from its wheel, with a per-version cache.

The result of one (library, version) is a JSON-able dict:
  {"library", "version", "built" (newest file date in the wheel), "modules": [...],
   "exports": {module: [names]}, "params": {path: {"params": [...], "external": [...], "kind"}},
   "facts": [{"kind", "owner", "old", "new", "message"}], "model_types": [...], "rope": {...},
   "defaults": {path: {param: text}}, "literals": {path: {param: [values]}},
   "members": {class path: {"members": [...], "external": [...]}}, "enums": {enum path: [values]},
   "parse_failures": [...]}
Class and enum paths are public (`transformers.DynamicCache`) when the top-level package exports the
class, else `module.Class`.
Cached as ~/.cache/kb/apidrift/extract/<library>-<version>-<targets digest>-v<EXTRACTOR>[.<REVISION>].json: a
rebuild re-reads only releases it has not seen (or all of a library, when its entry in
tables/api-history-targets.toml or its REVISION changes, and all, when EXTRACTOR changes).
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from kb.apidrift import deprecations, members, transformers_facts
from kb.apidrift.exports import ModuleIndex
from kb.apidrift.history import targets
from kb.apidrift.params import Resolver
from kb.apidrift.releases import CACHE
from kb.apidrift.wheel import Wheel

EXTRACTOR = 7  # 7: a deprecated name a message opens with unquoted (torch 2.3's sdp_kernel, peft's int8) (drift41)
# A change of the extractor that alters what it reads from one library's wheels only bumps that library's revision
# here instead of EXTRACTOR: that library's extractions and probes are read again, the others' caches stay valid (a
# rebuild needs no other wheel again: the old torch wheels are deleted once read). huggingface_hub 1: lazy_loader's
# `attach(submod_attrs={...})` read as a lazy table (0.8.0-0.9.1's top level exported only its submodules before;
# of the 904 cached wheels of the nine libraries only huggingface_hub's __init__ calls it).
# torch 1: its targets' runtime_exports (kb/apidrift/exports.py: typing-only names and unbound submodules are no exports).
# torch 2: a compiled module's stub declares no export by a type-only assignment (`T = TypeVar("T")`, `Stack = List[...]`,
# `X: TypeAlias = ...`) nor by a section its C++ file binds on a submodule (torch._C's tree views, `Def`; turn 50).
REVISION: dict[str, int] = {"huggingface_hub": 1, "torch": 2}


def cache_version(lib: str) -> str:
    """The extractor's version in a cache file name: `v6`, or `v6.1` for a library with a revision."""
    return f"v{EXTRACTOR}" + (f".{REVISION[lib]}" if lib in REVISION else "")


def extract(lib: str, version: str, wheel_path: Path) -> dict:
    wheel = Wheel(wheel_path, lib)
    spec = targets()[lib]
    index = ModuleIndex.for_spec(wheel, spec)

    exports: dict[str, list[str]] = {}
    full_modules: list[str] = []
    for module in wheel.modules():
        if not read_module(spec, module):
            continue
        exports[module] = sorted(index.exports(module))
        if not index.is_light(module):
            full_modules.append(module)
    for module, source in spec.get("extra_exports", {}).items():
        # torch's top level copies every function of the compiled torch._C._VariableFunctions at import
        if module in exports and wheel.has(source):
            exports[module] = sorted(set(exports[module]) | {n for n in index.exports(source) if not n.startswith("_")})

    # public path of every name the top-level package exports, by its defining module
    public: dict[str, str] = {}
    for name in exports.get(lib, []):
        binding = index.resolve(lib, name)
        if binding and binding[0] == "def" and binding[2] is not None:
            public[f"{binding[1]}.{name}"] = f"{lib}.{name}"

    resolver = Resolver(index)
    paths = list(spec.get("callables", []))
    suffixes = tuple(spec.get("export_callables", []))
    if suffixes:
        for name in exports.get(lib, []):
            if name.endswith(suffixes) and name[:1].isalpha():
                binding = index.resolve(lib, name)
                if binding and binding[0] == "def" and isinstance(binding[2], (ast.ClassDef, ast.FunctionDef)):
                    paths.append(f"{lib}.{name}")
    params: dict[str, dict] = {}
    defaults: dict[str, dict[str, str]] = {}
    literals: dict[str, dict[str, list[str]]] = {}
    for path in dict.fromkeys(paths):
        sig = resolver.signature(path)
        if sig is not None:
            params[path] = {"params": sig.params, "external": sig.external, "kind": sig.kind}
            kept = {k: v for k, v in sig.defaults.items() if k in sig.params}
            if kept:
                defaults[path] = kept
            values = {k: v for k, v in sig.literals.items() if k in sig.params}
            if values:
                literals[path] = values

    facts: list[dict] = []
    for module in full_modules:
        tree = wheel.tree(module)
        if tree is not None:
            facts.extend(deprecations.facts(tree, module, public))

    class_members, enums = _classes(lib, spec, index, resolver, full_modules, public)

    result = {
        "library": lib, "version": version, "built": wheel.built, "modules": wheel.modules(),
        "exports": exports, "params": params, "facts": facts,
        "model_types": transformers_facts.model_types(wheel) if lib == "transformers" else [],
        "rope": transformers_facts.rope_checks(wheel) if lib == "transformers" else {},
        "defaults": defaults, "literals": literals, "members": class_members, "enums": enums,
        "parse_failures": wheel.parse_failures,
    }
    return result


def read_module(spec: dict, module: str) -> bool:
    """Whether a module's names are read: all of them, unless the targets say `skip_private` (torch: a module
    with a private part, `torch._inductor.x`, is left out unless listed in `keep_private`)."""
    if not spec.get("skip_private"):
        return True
    if not any(part.startswith("_") for part in module.split(".")):
        return True
    return module.startswith(tuple(spec.get("keep_private", [])))


def _classes(lib: str, spec: dict, index: ModuleIndex, resolver: Resolver, full_modules: list[str],
             public: dict[str, str]) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """Members of the classes the top level exports (and targets.toml's `member_classes`, and every class of the
    fully read modules its `member_modules` regex matches), and every enum's values."""
    wanted: dict[str, tuple[str, ast.ClassDef]] = {}
    for name in index.exports(lib):
        binding = index.resolve(lib, name)
        if binding and binding[0] == "def" and isinstance(binding[2], ast.ClassDef):
            wanted[f"{lib}.{name}"] = (binding[1], binding[2])
    for path in spec.get("member_classes", []):
        found = resolver.find(path)
        if found and found[0] != "external" and isinstance(found[1], ast.ClassDef):
            wanted[path] = (found[0], found[1])
    trees = {m: t for m in full_modules if (t := index.wheel.tree(m)) is not None}
    member_modules = spec.get("member_modules")
    if member_modules:  # every class of these fully read modules (transformers 2.x-3.x's modeling_gpt2.Attention)
        import re

        chosen = re.compile(member_modules)
        for module, tree in trees.items():
            if chosen.fullmatch(module):
                for node in tree.body:
                    if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                        wanted.setdefault(public.get(f"{module}.{node.name}", f"{module}.{node.name}"), (module, node))
    enum_classes = members.enum_names(trees)
    enums: dict[str, list[str]] = {}
    for module, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name in enum_classes and not node.name.startswith("_"):
                path = public.get(f"{module}.{node.name}", f"{module}.{node.name}")
                values = members.enum_values(node)
                if values:
                    enums[path] = values
                    wanted.setdefault(path, (module, node))
    out: dict[str, dict] = {}
    for path, (module, node) in sorted(wanted.items()):
        names, external = members.class_members(resolver, module, node)
        out[path] = {"members": sorted(names), "external": external}
    return out, enums


def targets_digest(lib: str) -> str:
    """A short digest of the library's entry in tables/api-history-targets.toml. It is part of the cache key: an
    extraction made for another list of callables (one tracked since) must not be reused, or an offline rebuild
    would silently drop what was added."""
    spec = json.dumps(targets().get(lib, {}), sort_keys=True, default=str)
    return hashlib.sha256(spec.encode()).hexdigest()[:10]


def extract_cache(lib: str, version: str, cache: Path = CACHE) -> Path:
    """Where cached_extract keeps one release's extraction."""
    return cache / "extract" / f"{lib}-{version}-{targets_digest(lib)}-{cache_version(lib)}.json"


def cached_extract(lib: str, version: str, wheel_path: Path | Callable[[], Path], cache: Path = CACHE) -> dict:
    """extract(), cached outside the repository. `wheel_path` may be a function that fetches the file: it is
    called only when the extraction is not cached (so a big wheel can be deleted once read: torch 1.x, ~100 MB)."""
    path = extract_cache(lib, version, cache)
    if path.exists():
        return json.loads(path.read_text())
    result = extract(lib, version, wheel_path() if callable(wheel_path) else wheel_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return result
