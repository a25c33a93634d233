"""Extract one release's API facts from its wheel, with a per-version cache.

The result of one (library, version) is a JSON-able dict:
  {"library", "version", "built" (newest file date in the wheel), "modules": [...],
   "exports": {module: [names]}, "params": {path: {"params": [...], "external": [...], "kind"}},
   "facts": [{"kind", "owner", "old", "new", "message"}], "model_types": [...], "rope": {...},
   "parse_failures": [...]}
Cached as ~/.cache/kb/apidrift/extract/<library>-<version>-v<EXTRACTOR>.json: a rebuild re-reads
only releases it has not seen (or all, when EXTRACTOR changes).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from kb.apidrift import deprecations, transformers_facts
from kb.apidrift.exports import ModuleIndex
from kb.apidrift.history import targets
from kb.apidrift.params import Resolver
from kb.apidrift.releases import CACHE
from kb.apidrift.wheel import Wheel

EXTRACTOR = 4


def extract(lib: str, version: str, wheel_path: Path) -> dict:
    wheel = Wheel(wheel_path, lib)
    spec = targets()[lib]
    index = ModuleIndex(wheel, tuple(spec.get("skip_modules_detail", [])), tuple(spec.get("detailed_modules", [])))

    exports: dict[str, list[str]] = {}
    full_modules: list[str] = []
    for module in wheel.modules():
        exports[module] = sorted(index.exports(module))
        if not index.is_light(module):
            full_modules.append(module)

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
    for path in dict.fromkeys(paths):
        sig = resolver.signature(path)
        if sig is not None:
            params[path] = {"params": sig.params, "external": sig.external, "kind": sig.kind}

    facts: list[dict] = []
    for module in full_modules:
        tree = wheel.tree(module)
        if tree is not None:
            facts.extend(deprecations.facts(tree, module, public))

    result = {
        "library": lib, "version": version, "built": wheel.built, "modules": wheel.modules(),
        "exports": exports, "params": params, "facts": facts,
        "model_types": transformers_facts.model_types(wheel) if lib == "transformers" else [],
        "rope": transformers_facts.rope_checks(wheel) if lib == "transformers" else {},
        "parse_failures": wheel.parse_failures,
    }
    return result


def cached_extract(lib: str, version: str, wheel_path: Path, cache: Path = CACHE) -> dict:
    path = cache / "extract" / f"{lib}-{version}-v{EXTRACTOR}.json"
    if path.exists():
        return json.loads(path.read_text())
    result = extract(lib, version, wheel_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result))
    return result
