"""Read a wheel's Python sources without installing or importing it: zipfile + ast."""

from __future__ import annotations

import ast
import datetime
import re
import zipfile
from functools import cache
from pathlib import Path


class Wheel:
    """The .py files of one wheel, addressed by dotted module path."""

    def __init__(self, path: Path, package: str) -> None:
        self.path = path
        self.package = package
        self._zip = zipfile.ZipFile(path)
        self._files: dict[str, str] = {}  # module path -> file name in the zip
        self._packages: set[str] = set()
        newest = (1980, 1, 1, 0, 0, 0)
        for info in self._zip.infolist():
            name = info.filename
            if not name.endswith(".py") or not name.startswith(package + "/"):
                continue
            newest = max(newest, info.date_time)
            parts = name[:-3].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
                self._packages.add(".".join(parts))
            self._files[".".join(parts)] = name
        self.built = datetime.date(*newest[:3]).isoformat()
        self.parse_failures: list[str] = []
        self._trees: dict[str, ast.Module | None] = {}

    def modules(self) -> list[str]:
        return sorted(self._files)

    def is_package(self, module: str) -> bool:
        return module in self._packages

    def has(self, module: str) -> bool:
        return module in self._files

    def source(self, module: str) -> str | None:
        name = self._files.get(module)
        if name is None:
            return None
        return self._zip.read(name).decode("utf-8", errors="replace")

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
