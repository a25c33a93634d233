"""Class members and enum values, read from source: what `obj.name` and `SomeEnum("value")` accept.

A class's members are the names its body defines (methods, properties, nested classes, class attributes,
annotated fields) and the attributes its methods set on `self` (`self.x = ...`), plus those of its bases:
bases in the same wheel are followed through imports; a base from another tracked library is returned as
an external reference, resolved at merge time against that library's release current when the wheel was
built (as for parameters, kb/apidrift/params.py). Dunder names are left out.

An enum is a class one of whose bases is named ``*Enum`` (Enum, IntEnum, StrEnum, transformers'
ExplicitEnum) or is such a class of the same wheel; its values are the constants its body assigns
(`PAGED_ADAMW_32BIT = "paged_adamw_32bit"`), written as text.
"""

from __future__ import annotations

import ast

from kb.apidrift.params import Resolver


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def own_members(cls: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for target in _store_targets(node.body):
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    names.add(target.attr)
    return {n for n in names if not _dunder(n)}


def _store_targets(body: list[ast.stmt]):
    """Every assignment target in a list of statements and the statements nested in them (a statement-level
    walk: an attribute is stored only as a statement's target, so the expressions need not be visited)."""
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                yield from _flatten(target)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            yield from _flatten(stmt.target)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    yield from _flatten(item.optional_vars)
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _store_targets(inner)
        for handler in getattr(stmt, "handlers", []):
            yield from _store_targets(handler.body)
        for case in getattr(stmt, "cases", []):
            yield from _store_targets(case.body)


def _flatten(target: ast.expr):
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _flatten(element)
    elif isinstance(target, ast.Starred):
        yield from _flatten(target.value)
    else:
        yield target


def class_members(resolver: Resolver, module: str, cls: ast.ClassDef, depth: int = 0) -> tuple[set[str], list[str]]:
    """(member names, external bases "lib.Name") of a class, bases in the wheel included."""
    memo: dict[int, set[str]] = resolver.__dict__.setdefault("_own_members", {})  # a base is read once per wheel
    if id(cls) not in memo:
        memo[id(cls)] = own_members(cls)
    names = set(memo[id(cls)])
    external: list[str] = []
    if depth > 10:
        return names, external
    for base in resolver._bases(module, cls):
        if base[0] == "external":
            external.append(base[1])
        elif isinstance(base[1], ast.ClassDef):
            more, ext = class_members(resolver, base[0], base[1], depth + 1)
            names |= more
            external += [e for e in ext if e not in external]
    return names, external


def enum_names(trees: dict[str, ast.Module]) -> set[str]:
    """Names of the enum classes defined at the top of the given modules (fixpoint over base names)."""
    classes = [node for tree in trees.values() for node in tree.body if isinstance(node, ast.ClassDef)]
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in classes:
            if node.name in found:
                continue
            bases = {ast.unparse(b).split(".")[-1] for b in node.bases}
            if any(b.endswith("Enum") and b != "Enum" or b == "Enum" for b in bases) or bases & found:
                found.add(node.name)
                changed = True
    return found


def enum_values(cls: ast.ClassDef) -> list[str]:
    """The constant values assigned in an enum's body, as text (`True`/`1`/`"x"` -> "True"/"1"/"x")."""
    out: list[str] = []
    for node in cls.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and all(
                isinstance(t, ast.Name) and not t.id.startswith("_") for t in node.targets):
            if node.value.value is Ellipsis:  # a stub's `X = ...`: the value is not in the source
                continue
            text = str(node.value.value)
            if text not in out:
                out.append(text)
    return out
