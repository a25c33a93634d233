"""What `from <module> import NAME` can import, read statically from a wheel.

A module's names are its top-level bindings (defs, classes, assignments, imports, in every branch of
if/try blocks, TYPE_CHECKING included), the names of lazy import tables (`_import_structure = {...}`,
its `[key] = [...]`, `.extend`/`.append` forms, lazy_loader's `attach(submod_attrs={...})`), star imports, and for transformers' newer
`define_import_structure(...)` the `__all__` lists of the files it scans.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from kb.apidrift.wheel import Wheel, literal_all

# A binding: ("def", module, node) | ("from", module, name) | ("module", module) | ("value", module)
Binding = tuple


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Top-level statements, descending into if/try/with blocks (every branch)."""
    for node in body:
        if isinstance(node, ast.If):
            yield from _statements(node.body)
            yield from _statements(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _statements(node.body)
            for handler in node.handlers:
                yield from _statements(handler.body)
            yield from _statements(node.orelse)
            yield from _statements(node.finalbody)
        elif isinstance(node, ast.With):
            yield from _statements(node.body)
        else:
            yield node


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _import_structure(tree: ast.Module) -> dict[str, list[str]]:
    """The lazy table `_import_structure` (any module-level variable of that name), or lazy_loader's
    `attach(..., submodules=[...], submod_attrs={...})` call: {submodule: [names it provides]}."""
    table: dict[str, list[str]] = {}
    for node in _statements(tree.body):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == "_import_structure" and isinstance(node.value, ast.Dict):
                    for key, value in zip(node.value.keys, node.value.values):
                        if isinstance(key, ast.Constant) and isinstance(key.value, str):
                            table.setdefault(key.value, []).extend(_strings(value))
                elif (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                      and target.value.id == "_import_structure" and isinstance(target.slice, ast.Constant)):
                    table.setdefault(str(target.slice.value), []).extend(_strings(node.value))
        if (isinstance(node, (ast.Assign, ast.Expr)) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", getattr(node.value.func, "attr", "")).lstrip("_") == "attach"):
            # lazy_loader's attach (huggingface_hub 0.8.0 on: `__getattr__, __dir__, __all__ = _attach(__name__,
            # submodules=[...], submod_attrs={"hf_api": ["HfApi", ...], ...})`): the same table as _import_structure
            for keyword in node.value.keywords:
                if keyword.arg == "submod_attrs" and isinstance(keyword.value, ast.Dict):
                    for key, value in zip(keyword.value.keys, keyword.value.values):
                        if isinstance(key, ast.Constant) and isinstance(key.value, str):
                            table.setdefault(key.value, []).extend(_strings(value))
                elif keyword.arg == "submodules":
                    for sub in _strings(keyword.value):
                        table.setdefault(sub, [])
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            if (isinstance(func, ast.Attribute) and func.attr in ("extend", "append")
                    and isinstance(func.value, ast.Subscript) and isinstance(func.value.value, ast.Name)
                    and func.value.value.id == "_import_structure" and isinstance(func.value.slice, ast.Constant)
                    and node.value.args):
                arg = node.value.args[0]
                names = [arg.value] if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else _strings(arg)
                table.setdefault(str(func.value.slice.value), []).extend(names)
    return table


def _scanned_structure(wheel: Wheel, module: str, tree: ast.Module) -> dict[str, str]:
    """Names from `define_import_structure(...)`: every `__all__` in the scanned folder -> its module."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "define_import_structure"):
            continue
        text = ast.unparse(node)
        folder = module + ".models" if '"models"' in text or "'models'" in text else module
        for sub in wheel.modules():
            if sub.startswith(folder + ".") and sub != module:
                source = wheel.source(sub) or ""
                if "__all__" not in source:
                    continue
                for name in literal_all(source):
                    found.setdefault(name, sub)
    return found


_TOPLEVEL = re.compile(r"^(?:class|def|async def)\s+([A-Za-z]\w*)", re.MULTILINE)


def light_exports(wheel: Wheel, module: str) -> list[str]:
    """Top-level class/def names and __all__ of a module, read with a regex instead of a parse."""
    text = wheel.source(module) or ""
    names = set(_TOPLEVEL.findall(text)) | set(literal_all(text))
    return sorted(n for n in names if not n.startswith("_"))


class ModuleIndex:
    """Bindings of every module of one wheel, computed on demand and memoised."""

    def __init__(self, wheel: Wheel, light: tuple[str, ...] = (), detailed: tuple[str, ...] = ()) -> None:
        self.wheel = wheel
        self.light, self.detailed = light, detailed
        self._bindings: dict[str, dict[str, Binding]] = {}
        self._lazy: dict[str, set[str]] = {}  # lazy modules: the names their tables declare

    def is_light(self, module: str) -> bool:
        """Modules read without a full parse (transformers' ~400 per-model packages): see light_exports."""
        return bool(self.light) and module.startswith(self.light) and not module.startswith(self.detailed)

    def bindings(self, module: str, _depth: int = 0) -> dict[str, Binding]:
        if module in self._bindings:
            return self._bindings[module]
        if self.is_light(module):
            self._bindings[module] = {n: ("def", module, None) for n in light_exports(self.wheel, module)}
            return self._bindings[module]
        self._bindings[module] = {}  # guards against import cycles
        tree = self.wheel.tree(module)
        out: dict[str, Binding] = {}
        if tree is not None:
            for node in _statements(tree.body):
                self._bind(module, node, out, _depth)
            declared: set[str] = set()
            for key, names in _import_structure(tree).items():
                target = f"{module}.{key}"
                if "." not in key:
                    out.setdefault(key, ("module", target))
                    declared.add(key)
                for name in names:
                    out.setdefault(name, ("from", target, name))
                declared.update(names)
            source = self.wheel.source(module) or ""
            if "define_import_structure" in source:
                for name, target in _scanned_structure(self.wheel, module, tree).items():
                    out.setdefault(name, ("from", target, name))
                    declared.add(name)
            if "_LazyModule(" in source and "sys.modules[__name__]" in source:
                # the module object is replaced by a _LazyModule: only the declared names (and submodules) exist
                self._lazy[module] = declared
        self._bindings[module] = out
        return out

    def _bind(self, module: str, node: ast.stmt, out: dict[str, Binding], depth: int) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = ("def", module, node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    out[alias.asname] = ("module", alias.name)
                else:
                    top = alias.name.split(".")[0]
                    out.setdefault(top, ("module", top))
        elif isinstance(node, ast.ImportFrom):
            source = self.wheel.absolute(module, node.level, node.module)
            for alias in node.names:
                if alias.name == "*":
                    if source.split(".")[0] == self.wheel.package and depth < 6:
                        star = self.bindings(source, depth + 1)
                        listed = self._all(source)
                        for name, binding in star.items():
                            if (name in listed) if listed else not name.startswith("_"):
                                out.setdefault(name, binding)
                    continue
                sub = f"{source}.{alias.name}"
                if self.wheel.has(sub):
                    out[alias.asname or alias.name] = ("module", sub)
                else:
                    out[alias.asname or alias.name] = ("from", source, alias.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        out.setdefault(name.id, ("value", module))

    def _all(self, module: str) -> tuple[str, ...]:
        return literal_all(self.wheel.source(module) or "")

    def exports(self, module: str) -> set[str]:
        """Public names importable from `module` (no leading underscore)."""
        if self.is_light(module):
            return set(light_exports(self.wheel, module))
        bindings = self.bindings(module)
        if module in self._lazy:
            names = {n for n in self._lazy[module] if not n.startswith("_")}
        else:
            names = {n for n in bindings if not n.startswith("_")}
            names.update(n for n in self._all(module) if not n.startswith("_"))
        if self.wheel.is_package(module):
            prefix = module + "."
            names.update(m[len(prefix):] for m in self.wheel.modules()
                         if m.startswith(prefix) and "." not in m[len(prefix):] and not m[len(prefix):].startswith("_"))
        return names

    def resolve(self, module: str, name: str, _depth: int = 0) -> Binding | None:
        """Follow imports until the definition of `name` as seen from `module` (within this wheel)."""
        if _depth > 12:
            return None
        binding = self.bindings(module).get(name)
        if binding is None:
            return None
        if binding[0] == "from":
            target, original = binding[1], binding[2]
            if target.split(".")[0] != self.wheel.package:
                return binding  # another distribution: the caller decides
            if self.wheel.has(f"{target}.{original}"):
                return ("module", f"{target}.{original}")
            found = self.resolve(target, original, _depth + 1)
            return found or binding
        return binding
