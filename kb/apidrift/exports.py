"""What `from <module> import NAME` can import, read statically from a wheel.

A module's names are its top-level bindings (defs, classes, assignments, imports, in every branch of
if/try blocks, TYPE_CHECKING included), the names of lazy import tables (`_import_structure = {...}`,
its `[key] = [...]`, `.extend`/`.append` forms, lazy_loader's `attach(submod_attrs={...})`), star imports, and for transformers' newer
`define_import_structure(...)` the `__all__` lists of the files it scans.

With `runtime_exports` (tables/api-history-targets.toml: torch), a module's names are what an attribute access finds after
the import: names bound only for a type checker are left out (an `if TYPE_CHECKING:` block's, and a `.pyi` stub's imports
other than PEP 484's re-export forms `import X as X`, `from M import X as X` and `*`: torch 2.3.0-2.4.1's `torch/__init__.py`
imports `Any` from typing at run time, the `torch._C` stubs every release only for their annotations), and a package's
submodule counts only when an import that runs on importing the package (or the library) binds it (torch 1.2.0's
`nn/modules/module.py` imports `torch.nn.backends.thnn`, so `torch.nn.backends` is bound; 1.3.0 imports it nowhere). A
module with its own `__getattr__` keeps those of both that it names in a string, which it may serve lazily (torch 2.x's
top level: `_lazy_modules = {"_dynamo", "onnx", ...}`; a star import of a stub brings none of the stub's typing names.
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
    for node, _ in _marked_statements(body):
        yield node


def _type_checking(test: ast.expr) -> bool:
    """`TYPE_CHECKING`, `typing.TYPE_CHECKING` (any prefix)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _marked_statements(body: list[ast.stmt], typing_only: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """_statements, each with whether it runs only for a type checker (inside `if TYPE_CHECKING:`, or the `else` of
    `if not TYPE_CHECKING:`)."""
    for node in body:
        if isinstance(node, ast.If):
            test = node.test
            negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _type_checking(test.operand)
            yield from _marked_statements(node.body, typing_only or _type_checking(test))
            yield from _marked_statements(node.orelse, typing_only or negated)
        elif isinstance(node, ast.Try):
            yield from _marked_statements(node.body, typing_only)
            for handler in node.handlers:
                yield from _marked_statements(handler.body, typing_only)
            yield from _marked_statements(node.orelse, typing_only)
            yield from _marked_statements(node.finalbody, typing_only)
        elif isinstance(node, ast.With):
            yield from _marked_statements(node.body, typing_only)
        else:
            yield node, typing_only


def _stub_reexports(node: ast.Import | ast.ImportFrom) -> bool:
    """Whether a stub's import re-exports what it binds (PEP 484: `import X as X`, `from M import X as X`, `*`);
    a stub's other imports are there for its annotations only."""
    return all(alias.name == "*" or alias.asname == alias.name for alias in node.names)


# A stub's assignments that only a type checker sees: `T = TypeVar("T")` and its kin, `Stack: TypeAlias = list[IValue]`,
# `Stack = List[IValue]`.
# A compiled module cannot bind them (torch 2.13.0's torch._C has no `T`, `K`, `Stack`, `ResolutionCallback`).
_TYPING_FACTORIES = frozenset({"TypeVar", "ParamSpec", "TypeVarTuple", "NewType"})
_DEFINED_IN = re.compile(r"^#\s*defined in\s+(\S+)", re.IGNORECASE | re.MULTILINE)


def _called(node: ast.expr) -> str | None:
    """The name a call or annotation refers to: `TypeVar` for both `TypeVar(...)` and `typing.TypeVar(...)`."""
    target = node.func if isinstance(node, ast.Call) else node
    return target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)


def stub_typing_assignment(node: ast.stmt) -> bool:
    """Whether a stub's statement binds a name for a type checker only: an assignment of a TypeVar, ParamSpec,
    TypeVarTuple or NewType call, of a subscripted type (an old-style alias: torch 1.x-2.7's `Stack = List[IValue]`,
    `ResolutionCallback = Callable[...]`), or one annotated `TypeAlias`. In a .py module these are real attributes; in
    a compiled module's .pyi stub they declare nothing the compiled module has (checked on torch 1.12.0 and 1.13.0)."""
    if isinstance(node, ast.Assign):
        return isinstance(node.value, ast.Subscript) or (isinstance(node.value, ast.Call)
                                                         and _called(node.value) in _TYPING_FACTORIES)
    if isinstance(node, ast.AnnAssign):
        return _called(node.annotation) == "TypeAlias"
    return False


def defined_in_sections(source: str) -> list[tuple[int, str]]:
    """A stub's `# Defined in <file>` comments as (line number, file), in order: torch's generated stubs group their
    declarations by the C++ file that binds them."""
    return [(source.count("\n", 0, m.start()) + 1, m.group(1)) for m in _DEFINED_IN.finditer(source)]


def section_at(sections: list[tuple[int, str]], line: int) -> str | None:
    """The file of the last `# Defined in` comment above ``line``, or None."""
    found = None
    for start, file in sections:
        if start >= line:
            break
        found = file
    return found


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

    def __init__(self, wheel: Wheel, light: tuple[str, ...] = (), detailed: tuple[str, ...] = (),
                 runtime: bool = False, stub_sections: dict[str, str] | None = None) -> None:
        self.wheel = wheel
        self.light, self.detailed = light, detailed
        self.runtime = runtime  # exports are what an attribute access finds after the import (module docstring)
        # runtime: a package stub's `# Defined in <file>` sections whose file binds on a submodule (targets' stub_sections)
        self.stub_sections = dict(stub_sections or {})
        self._bindings: dict[str, dict[str, Binding]] = {}
        self._lazy: dict[str, set[str]] = {}  # lazy modules: the names their tables declare
        self._typing_only: dict[str, set[str]] = {}  # runtime: names a module binds only for a type checker
        self._imports: dict[str, set[str]] = {}  # runtime: the wheel's modules a module imports when it runs
        self._bound: dict[str, set[str]] = {}  # runtime: package -> its submodules bound by the imports that run
        self._lazy_served: dict[str, set[str]] = {}  # runtime: names a module's __getattr__ may serve

    @classmethod
    def for_spec(cls, wheel: Wheel, spec: dict) -> ModuleIndex:
        """The index a library's entry in tables/api-history-targets.toml asks for."""
        return cls(wheel, tuple(spec.get("skip_modules_detail", [])), tuple(spec.get("detailed_modules", [])),
                   bool(spec.get("runtime_exports")), spec.get("stub_sections"))

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
            if self.runtime:
                self._bind_runtime(module, tree, out, _depth)
            else:
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

    def _bind_runtime(self, module: str, tree: ast.Module, out: dict[str, Binding], depth: int) -> None:
        """_bind every statement, noting the names bound only for a type checker (or deleted by a later top-level
        `del`) and the modules imported."""
        stub = self.wheel.is_stub(module)
        typing_names: set[str] = set()
        runtime_names: set[str] = set()
        imported: set[str] = set()
        redeclared = self._redeclared(module, tree) if stub else {}
        for node, typing_only in _marked_statements(tree.body):
            if isinstance(node, ast.Delete) and not typing_only:  # `del adam` after `from . import adam` (torch.optim)
                gone = {t.id for t in node.targets if isinstance(t, ast.Name)}
                runtime_names -= gone
                typing_names |= gone
                continue
            self._bind(module, node, out, depth)
            if not isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                     ast.Assign, ast.AnnAssign, ast.AugAssign)):
                continue
            bound: dict[str, Binding] = {}
            self._bind(module, node, bound, depth)
            annotation = typing_only or (stub and isinstance(node, (ast.Import, ast.ImportFrom))
                                         and not _stub_reexports(node)) or (stub and stub_typing_assignment(node))
            if stub and not annotation and set(bound) & redeclared.get(node.lineno, set()):
                annotation = True  # a submodule's binding the package stub repeats (torch 2.12's `torch._C.Def`)
            if annotation:
                typing_names.update(bound)
            else:
                runtime_names.update(bound)
                typing_names.difference_update(bound)
            if annotation or stub:
                continue
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                source = self.wheel.absolute(module, node.level, node.module)
                imported.add(source)
                imported.update(f"{source}.{a.name}" for a in node.names if self.wheel.has(f"{source}.{a.name}"))
        self._typing_only[module] = typing_names - runtime_names
        package = self.wheel.package
        self._imports[module] = {m for m in imported if m == package or m.startswith(package + ".")}

    def _redeclared(self, module: str, tree: ast.Module) -> dict[int, set[str]]:
        """A package stub's declarations that belong to one of its submodules: a top-level class or function that the
        package stub declares in a `# Defined in F` section, where the stub of a direct submodule names the same file F
        and declares the same name, by line. The C++ file binds them on that submodule only: torch 2.12's
        `torch/_C/__init__.pyi` repeats `Def`, `Decl`, `TreeView` ... of `_jit_tree_views.pyi` (both "Defined in
        torch/csrc/jit/python/python_tree_views.cpp"), and the compiled torch._C has none of them (torch._C.
        _jit_tree_views has). A submodule stub without such a comment (`_VariableFunctions.pyi`), or one naming another
        file (`_monitor.pyi`'s `Event`, bound by monitor/python_init.cpp, not torch/csrc/Event.cpp), takes nothing.
        Releases that ship no submodule stub (torch 1.7.0-2.8.0 declare the tree views in `__init__.pyi` only) are read
        with the targets' `stub_sections` (file -> submodule): every declaration of such a section is the submodule's."""
        if not self.wheel.is_package(module):
            return {}
        sections = defined_in_sections(self.wheel.source(module) or "")
        out: dict[int, set[str]] = {}
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                if section_at(sections, node.lineno) in self.stub_sections:
                    out.setdefault(node.lineno, set()).add(node.name)
        children: dict[str, set[str]] = {}  # a file a submodule stub names -> the names that stub declares
        prefix = module + "."
        for sub in self.wheel.modules():
            if not sub.startswith(prefix) or "." in sub[len(prefix):] or not self.wheel.is_stub(sub):
                continue
            sub_tree = self.wheel.tree(sub)
            if sub_tree is None:
                continue
            declared = {n.name for n in sub_tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
            for _, file in defined_in_sections(self.wheel.source(sub) or ""):
                children.setdefault(file, set()).update(declared)
        if not children:
            return out
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                file = section_at(sections, node.lineno)
                if file and node.name in children.get(file, ()):
                    out.setdefault(node.lineno, set()).add(node.name)
        return out

    def _served(self, module: str) -> set[str]:
        """The names a module-level `__getattr__` (PEP 562) may serve lazily: the module's string constants
        (torch 2.x's `_lazy_modules = {"_dynamo", "onnx", ...}`); none without one, or in a stub (whose `__getattr__`
        only marks the stub incomplete)."""
        if module not in self._lazy_served:
            served: set[str] = set()
            binding = self.bindings(module).get("__getattr__")
            tree = self.wheel.tree(module)
            if binding and binding[0] == "def" and not self.wheel.is_stub(module) and tree is not None:
                served = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                          and n.value.isidentifier()}
            self._lazy_served[module] = served
        return self._lazy_served[module]

    def bound_submodules(self, package: str) -> set[str]:
        """The direct submodules of `package` bound as its attributes once `import <package>` has run: every
        module that import runs (the package's ancestors, the package, and what they import at their top level,
        transitively) binds each part of its dotted name on its parent."""
        if package not in self._bound:
            ran: set[str] = set()
            todo = [".".join(package.split(".")[: i + 1]) for i in range(package.count(".") + 1)]
            while todo:
                module = todo.pop()
                if module in ran or not self.wheel.has(module):
                    continue
                ran.add(module)
                if self.is_light(module):
                    continue
                self.bindings(module)
                for target in self._imports.get(module, ()):
                    parts = target.split(".")
                    todo.extend(".".join(parts[: i + 1]) for i in range(len(parts)))
            prefix = package + "."
            self._bound[package] = {m[len(prefix):].split(".")[0] for m in ran if m.startswith(prefix)}
        return self._bound[package]

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
                        hidden = self._typing_only.get(source, set()) if self.runtime else set()
                        for name, binding in star.items():
                            if name in hidden:
                                continue
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
            hidden = self._typing_only.get(module, set()) - self._served(module) if self.runtime else set()
            names = {n for n in bindings if not n.startswith("_") and n not in hidden}
            names.update(n for n in self._all(module) if not n.startswith("_"))
        if self.wheel.is_package(module):
            prefix = module + "."
            subs = {m[len(prefix):] for m in self.wheel.modules()
                    if m.startswith(prefix) and "." not in m[len(prefix):] and not m[len(prefix):].startswith("_")}
            if self.runtime and module not in self._lazy:
                hidden = self._typing_only.get(module, set()) - self._served(module)
                subs = (subs & (self.bound_submodules(module) | self._served(module))) - hidden
            names.update(subs)
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
