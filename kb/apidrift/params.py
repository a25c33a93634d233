"""Parameter names a caller may pass to a class or function, inheritance resolved, read from source.

For a dataclass: its fields (bases' fields first). For a class with `__init__`: that method's
parameters, plus the next base's when `**kwargs` is passed on to `super().__init__`, plus names read
from `kwargs` (`kwargs.pop("x")`, `kwargs.get("x")`, `"x" in kwargs`). Old names kept alive by
`@deprecate_kwarg("old", ...)` decorators count as accepted. A base class from another of the six
libraries (trl's SFTConfig extends transformers' TrainingArguments) is returned as an external
reference; the merge step adds that library's parameters for the contemporary release.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from kb.apidrift.exports import ModuleIndex
from kb.apidrift.wheel import string_value
from kb.knowledge.tables import libraries

TRACKED = tuple(sorted(libraries("api_history")))  # tables/libraries.toml


@dataclass
class Signature:
    params: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)  # "transformers.TrainingArguments"; appended after params
    kind: str = "function"  # class | function
    defaults: dict[str, str] = field(default_factory=dict)  # param -> default as source text
    literals: dict[str, list[str]] = field(default_factory=dict)  # param -> values of a Literal[...] annotation

    def add(self, names: list[str], info: dict[str, tuple[str | None, list[str]]] | None = None,
            override: bool = False) -> None:
        """Add parameter names; `info` gives (default text, literal values) per name. `override`: a subclass's
        dataclass field replaces the base's default; otherwise the first seen (the subclass's __init__) wins."""
        for name in names:
            if name not in self.params:
                self.params.append(name)
        for name, (default, literals) in (info or {}).items():
            if default is not None and (override or name not in self.defaults):
                self.defaults[name] = default
            if literals and (override or name not in self.literals):
                self.literals[name] = literals


_MAX_DEFAULT = 80  # characters of a default's source text kept


def _text(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= _MAX_DEFAULT else text[: _MAX_DEFAULT - 3] + "..."


def literal_values(annotation: ast.AST | None) -> list[str]:
    """The values of every `Literal[...]` in an annotation (`Optional[Literal["left", "right"]]`), as text."""
    if annotation is None:
        return []
    out: list[str] = []
    for node in ast.walk(annotation):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value).split(".")[-1] == "Literal":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            out += [str(i.value) for i in items if isinstance(i, ast.Constant)]
    return out


def _is_none_test(test: ast.expr, name: str) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == name
            and isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None)


def _none_replaced(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str | None:
    """X of a top-level `if name is None: name = X` in the body, also through a flag
    (`not_set = name is None` ... `if not_set: name = X`: torch.load's weights_only in 2.6)."""
    flags = {t.id for stmt in func.body if isinstance(stmt, ast.Assign) and _is_none_test(stmt.value, name)
             for t in stmt.targets if isinstance(t, ast.Name)}
    for stmt in func.body:
        if isinstance(stmt, ast.If) and (_is_none_test(stmt.test, name)
                                         or isinstance(stmt.test, ast.Name) and stmt.test.id in flags):
            for inner in stmt.body:
                if isinstance(inner, ast.Assign) and len(inner.targets) == 1:
                    target = inner.targets[0]
                    if isinstance(target, ast.Name) and target.id == name:
                        return _text(inner.value)
                    if isinstance(target, ast.Tuple) and isinstance(inner.value, ast.Tuple):
                        for t, v in zip(target.elts, inner.value.elts):
                            if isinstance(t, ast.Name) and t.id == name:
                                return _text(v)
    return None


def function_info(func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[str | None, list[str]]]:
    """{param: (default text or None, Literal values)} of a function's own signature."""
    args = func.args
    out: dict[str, tuple[str | None, list[str]]] = {}
    positional = args.posonlyargs + args.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for arg, default in list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
        text = _text(default) if default is not None else None
        if text == "None":
            replaced = _none_replaced(func, arg.arg)
            if replaced is not None and replaced != "None":
                text = f"None -> {replaced}"
        out[arg.arg] = (text, literal_values(arg.annotation))
    return out


def field_info(cls: ast.ClassDef) -> dict[str, tuple[str | None, list[str]]]:
    """{field: (default text or None, Literal values)} of a dataclass's own annotated fields."""
    out: dict[str, tuple[str | None, list[str]]] = {}
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        value, default = node.value, None
        if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "field":
            kw = {k.arg: k.value for k in value.keywords if k.arg}
            if "default" in kw:
                default = _text(kw["default"])
            elif "default_factory" in kw:
                default = _text(kw["default_factory"]) + "()"
        elif value is not None:
            default = _text(value)
        out[node.target.id] = (default, literal_values(node.annotation))
    return out


def _decorator_names(node: ast.FunctionDef | ast.ClassDef) -> list[str]:
    out = []
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        out.append(ast.unparse(target).split(".")[-1])
    return out


def is_dataclass(node: ast.ClassDef) -> bool:
    """Decorated @dataclass, or huggingface_hub's @strict (transformers 5's configs)."""
    names = _decorator_names(node)
    return "dataclass" in names or "strict" in names


def deprecated_kwargs(func: ast.FunctionDef) -> list[tuple[str, str | None, str | None, ast.Call]]:
    """(old, new, version, call) of each `@deprecate_kwarg(...)` decorator."""
    out = []
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and ast.unparse(deco.func).split(".")[-1] == "deprecate_kwarg" and deco.args:
            old = string_value(deco.args[0])
            kw = {k.arg: string_value(k.value) for k in deco.keywords if k.arg}
            new = kw.get("new_name")
            version = kw.get("version") or (string_value(deco.args[1]) if len(deco.args) > 1 else None)
            if old:
                out.append((old, new, version, deco))
    return out


def function_params(func: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> tuple[list[str], bool]:
    """(names, has **kwargs)."""
    args = func.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if method and names and names[0] in ("self", "cls"):
        names = names[1:]
    names += [old for old, _new, _v, _c in deprecated_kwargs(func) if old not in names]
    if args.kwarg:
        names += [n for n in kwargs_read(func, args.kwarg.arg) if n not in names]
    return names, args.kwarg is not None


def kwargs_read(func: ast.AST, kwargs: str) -> list[str]:
    """Names the body reads from the **kwargs dict by string key."""
    found: list[str] = []
    for node in ast.walk(func):
        key = None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("pop", "get")
                and isinstance(node.func.value, ast.Name) and node.func.value.id == kwargs and node.args):
            key = string_value(node.args[0])
        elif (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In)
              and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == kwargs):
            key = string_value(node.left)
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == kwargs
              and isinstance(node.ctx, ast.Load)):
            key = string_value(node.slice)
        if key and key.isidentifier() and key not in found:
            found.append(key)
    return found


def _passes_kwargs_up(func: ast.FunctionDef, kwargs: str | None) -> bool:
    if not kwargs:
        return False
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__":
            if any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs for k in node.keywords):
                return True
    return False


def _field_names(cls: ast.ClassDef) -> list[str]:
    names = []
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if "ClassVar" in ast.unparse(node.annotation):
                continue
            value = node.value
            if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "field":
                if any(k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                       for k in value.keywords):
                    continue
            names.append(node.target.id)
    return names


class Resolver:
    """Resolves public callable paths of one wheel to their signatures."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.wheel = index.wheel

    def find(self, path: str) -> tuple[str, ast.AST] | tuple[str, str] | None:
        """(defining module, node) for a dotted public path, or ("external", "lib.Name")."""
        parts = path.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if not self.wheel.has(module):
                continue
            found = self._lookup(module, parts[cut])
            for attr in parts[cut + 1:]:
                if found is None or found[0] == "external" or not isinstance(found[1], ast.ClassDef):
                    return None
                found = self._member(found[0], found[1], attr)
            return found
        return None

    def _lookup(self, module: str, name: str) -> tuple[str, ast.AST] | tuple[str, str] | None:
        binding = self.index.resolve(module, name)
        if binding is None:
            return None
        if binding[0] == "def" and binding[2] is None:
            return self._in_detailed(binding[1], name)
        if binding[0] == "from" and self.index.is_light(binding[1]):
            return self._in_detailed(binding[1], binding[2])
        if binding[0] == "def":
            return binding[1], binding[2]
        if binding[0] == "from" and binding[1].split(".")[0] in TRACKED and binding[1].split(".")[0] != self.wheel.package:
            return "external", f"{binding[1].split('.')[0]}.{binding[2]}"
        return None

    def _in_detailed(self, package: str, name: str) -> tuple[str, ast.AST] | None:
        """A definition of `name` in a fully read module under a regex-read package (transformers' LlamaConfig)."""
        for module in self.wheel.modules():
            if module.startswith(package + ".") and not self.index.is_light(module):
                binding = self.index.bindings(module).get(name)
                if binding and binding[0] == "def" and binding[2] is not None:
                    return binding[1], binding[2]
        return None

    def _expr(self, module: str, expr: ast.expr) -> tuple[str, ast.AST] | tuple[str, str] | None:
        """Resolve a base-class expression (Name or dotted Attribute) seen in `module`."""
        dotted = ast.unparse(expr.value if isinstance(expr, ast.Subscript) else expr)
        head, _, rest = dotted.partition(".")
        if not rest:
            return self._lookup(module, head)
        binding = self.index.bindings(module).get(head)
        if binding and binding[0] == "module":
            full = f"{binding[1]}.{rest}"
            if full.split(".")[0] == self.wheel.package:
                return self.find(full)
            if full.split(".")[0] in TRACKED:
                return "external", full  # torch.nn.Module; merge.py falls back to the last name's match
        return None

    def _bases(self, module: str, cls: ast.ClassDef) -> list[tuple[str, ast.AST] | tuple[str, str]]:
        out = []
        for base in cls.bases:
            found = self._expr(module, base)
            if found is not None:
                out.append(found)
        return out

    def _member(self, module: str, cls: ast.ClassDef, name: str, depth: int = 0):
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return module, node
        if depth > 10:
            return None
        for base in self._bases(module, cls):
            if base[0] == "external":
                return "external", f"{base[1]}.{name}"
            found = self._member(base[0], base[1], name, depth + 1)
            if found:
                return found
        return None

    def signature(self, path: str) -> Signature | None:
        found = self.find(path)
        if found is None:
            return None
        if found[0] == "external":
            return Signature(external=[found[1]], kind="external")
        module, node = found
        if isinstance(node, ast.ClassDef):
            sig = Signature(kind="class")
            self._class(module, node, sig, 0)
            return sig
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names, _ = function_params(node, method=True)
            sig = Signature()
            sig.add(names, function_info(node))
            return sig
        return None

    def _class(self, module: str, cls: ast.ClassDef, sig: Signature, depth: int) -> None:
        if depth > 10:
            return
        own_init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        bases = self._bases(module, cls)
        if own_init is not None:  # an explicit __init__ wins, also in a @dataclass (BitsAndBytesConfig)
            names, _ = function_params(own_init, method=True)
            sig.add(names, function_info(own_init))
            if _passes_kwargs_up(own_init, own_init.args.kwarg.arg if own_init.args.kwarg else None):
                self._first_base(bases, sig, depth)
            return
        if is_dataclass(cls) or (own_init is None and self._dataclass_base(bases, depth)):
            for base in bases:
                if base[0] == "external":
                    sig.external.append(base[1])
                elif isinstance(base[1], ast.ClassDef):
                    self._class(base[0], base[1], sig, depth + 1)
            sig.add(_field_names(cls), field_info(cls), override=True)
            return
        self._first_base(bases, sig, depth)

    def _dataclass_base(self, bases, depth: int) -> bool:
        """A base in this wheel is a dataclass (its subclasses' annotated fields are init fields too)."""
        for base in bases:
            if base[0] != "external" and isinstance(base[1], ast.ClassDef) and depth < 10:
                if is_dataclass(base[1]) or self._dataclass_base(self._bases(base[0], base[1]), depth + 1):
                    return True
        return False

    def _first_base(self, bases, sig: Signature, depth: int) -> None:
        for base in bases:
            if base[0] == "external":
                sig.external.append(base[1])
                return
            if isinstance(base[1], ast.ClassDef):
                self._class(base[0], base[1], sig, depth + 1)
                return
