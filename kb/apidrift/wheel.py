"""Read a wheel's (or sdist's) Python sources without installing or importing it: zipfile/tarfile + ast."""

from __future__ import annotations

import ast
import datetime
import re
import zipfile
from functools import cache
from pathlib import Path


class Wheel:
    """The .py files of one wheel (or, for a library without wheels, its sdist), addressed by dotted module path.

    A stub (.pyi) stands in for a module that has no .py file: torch's compiled `torch._C` is known only
    from `torch/_C/__init__.pyi` and `_VariableFunctions.pyi`, which the wheel ships.
    """

    def __init__(self, path: Path, package: str) -> None:
        self.path = path
        self.package = package
        self._files: dict[str, str] = {}  # module path -> file name in the archive
        self._packages: set[str] = set()
        self._read = self._open(path)
        newest = (1980, 1, 1, 0, 0, 0)
        stubs: dict[str, str] = {}
        for name, date_time in self._names:
            if not name.endswith((".py", ".pyi")) or not name.startswith(package + "/"):
                continue
            newest = max(newest, date_time)
            parts = name.rsplit(".", 1)[0].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
                self._packages.add(".".join(parts))
            (stubs if name.endswith(".pyi") else self._files)[".".join(parts)] = name
        for module, name in stubs.items():
            self._files.setdefault(module, name)
        self.built = datetime.date(*newest[:3]).isoformat()
        self.parse_failures: list[str] = []
        self._trees: dict[str, ast.Module | None] = {}

    def _open(self, path: Path):
        """A reader of archive members; fills self._names with (name inside the package root, date)."""
        if path.name.endswith(".tar.gz"):
            import tarfile

            contents: dict[str, bytes] = {}
            self._names: list[tuple[str, tuple]] = []
            with tarfile.open(path, "r:gz") as tar:
                for member in tar.getmembers():
                    if not member.isfile() or not member.name.endswith((".py", ".pyi")):
                        continue
                    name = member.name.split("/", 1)[1] if "/" in member.name else member.name  # drop "pkg-1.0/"
                    if not name.startswith(self.package + "/"):
                        continue
                    handle = tar.extractfile(member)
                    if handle is not None:
                        contents[name] = handle.read()
                        when = datetime.datetime.fromtimestamp(member.mtime, datetime.timezone.utc)
                        self._names.append((name, when.timetuple()[:6]))
            return contents.__getitem__
        archive = zipfile.ZipFile(path)
        self._names = [(i.filename, i.date_time) for i in archive.infolist()]
        return archive.read

    def modules(self) -> list[str]:
        return sorted(self._files)

    def is_package(self, module: str) -> bool:
        return module in self._packages

    def has(self, module: str) -> bool:
        return module in self._files

    def is_stub(self, module: str) -> bool:
        """Whether the module is known only from a `.pyi` stub (torch's compiled `torch._C`)."""
        return self._files.get(module, "").endswith(".pyi")

    def source(self, module: str) -> str | None:
        name = self._files.get(module)
        if name is None:
            return None
        return self._read(name).decode("utf-8", errors="replace")

    def tree(self, module: str) -> ast.Module | None:
        """The module's AST, or None when missing or not parseable by this Python."""
        if module not in self._trees:
            text = self.source(module)
            tree = None
            if text is not None:
                try:
                    tree = ast.parse(text)
                except SyntaxError:
                    self.parse_failures.append(module)
            self._trees[module] = tree
        return self._trees[module]

    def absolute(self, module: str, level: int, target: str | None) -> str:
        """The absolute module named by `from <level dots><target> import ...` inside `module`."""
        if level == 0:
            return target or ""
        base = module.split(".")
        if not self.is_package(module):
            base = base[:-1]
        if level > 1:
            base = base[: len(base) - (level - 1)]
        return ".".join(base + ([target] if target else []))


_ALL = re.compile(r"^__all__\s*(?:=|\+=)\s*(\[.*?\]|\(.*?\))", re.DOTALL | re.MULTILINE)


@cache
def literal_all(source: str) -> tuple[str, ...]:
    """The names of `__all__ = [...]` literals in a source text (cheap: no full parse)."""
    names: list[str] = []
    for m in _ALL.finditer(source):
        try:
            value = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError):
            continue
        names.extend(v for v in value if isinstance(v, str))
    return tuple(names)


def string_value(node: ast.AST) -> str | None:
    """The text of a string constant, f-string (placeholders as {...}) or `a + b` of strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            else:
                out.append("{" + (ast.unparse(part.value) if isinstance(part, ast.FormattedValue) else "") + "}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = string_value(node.left), string_value(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def decorated_functions(tree: ast.Module, decorator: str) -> list[tuple[list[str], ast.FunctionDef | ast.AsyncFunctionDef,
                                                                         ast.expr]]:
    """(enclosing class names, the function, the decorator) of each decorator of a module-level function or a method
    (classes nested in classes too) that is ``decorator``, bare (`@name`) or called (`@name(...)`), under any dotted
    prefix (`@utils.name`), in source order. decorated.py and validated.py read their decorators through it."""
    out: list[tuple[list[str], ast.FunctionDef | ast.AsyncFunctionDef, ast.expr]] = []

    def visit(body: list[ast.stmt], stack: list[str]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, [*stack, node.name])
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for deco in node.decorator_list:
                    target = deco.func if isinstance(deco, ast.Call) else deco
                    if ast.unparse(target).split(".")[-1] == decorator:
                        out.append((stack, node, deco))

    visit(tree.body, [])
    return out
