"""The instance attributes a torch module class's ``forward`` reads, release by release
(``torch.nn.GELU.forward`` reads ``self.approximate`` from 1.12.0, ``torch.nn.Upsample.forward`` reads
``self.recompute_scale_factor`` from 1.11.0), and the removed functions torch keeps as stubs that raise (``torch.solve``
from 1.12.0, ``torch.lstsq`` from 1.13.0: "This function was deprecated since version 1.9 and is now removed").

A module saved whole (``torch.save(model)``, a pickled ``nn.Module``) keeps the instance dictionary its ``__init__``
built in the saving release. Loaded by a later release, the object runs that release's ``forward``; where that
``forward`` reads an attribute the older ``__init__`` did not set, the call fails with "AttributeError: 'GELU' object
has no attribute 'approximate'". The code is right for neither release alone: it is drift between the release that
saved the object and the release that loads it. The API history's signatures do not show it (``Upsample`` took
``recompute_scale_factor`` from 1.6.0; its ``forward`` began to read it in 1.11.0), so this table records, per class of
``torch.nn.modules`` and per attribute its ``forward`` reads off ``self`` without a default, the first cached release
whose ``forward`` reads it, where that release is later than the class's first. Read only for an "'C' object has no
attribute 'a'" error whose class and attribute it records (kb/apidrift/answer.py, ``_pickled_module``).

    python -m kb.apidrift.module_state build    # scan the cached torch wheels (~/.cache/kb/apidrift/wheels)
"""

from __future__ import annotations


from kb.apidrift.json_table import read_table, write_table

TABLE = "api-history-module-state.json.gz"
PACKAGE_DIR = "torch/nn/modules/"


def forward_reads(source: str) -> dict[str, tuple[set[str], set[str]]]:
    """Per class of a module's source: the attributes its ``forward`` reads as ``self.x`` (not a method it calls, not
    a ``getattr(self, 'x', default)``), and the attributes anything in the class assigns as ``self.x = ...``."""
    import ast  # (the table's build only: an answer reads the table, turn 49)

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, tuple[set[str], set[str]]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        read: set[str] = set()
        assigned: set[str] = set()
        for item in node.body:
            if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            called = {id(c.func) for c in ast.walk(item) if isinstance(c, ast.Call)}
            for sub in ast.walk(item):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "self":
                    if isinstance(sub.ctx, ast.Store):
                        assigned.add(sub.attr)
                    elif item.name == "forward" and id(sub) not in called and not sub.attr.startswith("_"):
                        read.add(sub.attr)
        found[node.name] = (read, assigned)
    return found


def scan_wheel(path: str) -> dict[str, tuple[list[str], list[str]]]:
    """The classes of ``torch/nn/modules/*.py`` in one wheel: (attributes forward reads, attributes assigned)."""
    import zipfile

    classes: dict[str, tuple[list[str], list[str]]] = {}
    with zipfile.ZipFile(path) as wheel:
        for name in wheel.namelist():
            if not name.startswith(PACKAGE_DIR) or not name.endswith(".py"):
                continue
            for cls, (read, assigned) in forward_reads(wheel.read(name).decode("utf-8", "replace")).items():
                classes[cls] = (sorted(read), sorted(assigned))
    return classes


STUB_FILES = ("torch/_linalg_utils.py", "torch/functional.py")  # where torch keeps removed functions' raising stubs
REMOVED = "is now removed"


def removed_stubs(source: str) -> dict[str, str]:
    """The top-level functions of a module whose body raises a message saying the function "is now removed" (torch
    keeps `solve`, `lstsq`, ... so that the call names its replacement), each with the first backquoted `torch.x`
    its message names (the replacement; "" when none)."""
    import ast
    import re

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    stubs: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Raise) and sub.exc is not None:
                text = "".join(c.value for c in ast.walk(sub.exc) if isinstance(c, ast.Constant) and isinstance(c.value, str))
                if REMOVED in text:  # the replacement: the first backquoted torch name that is not the stub's own
                    named = [n for n in re.findall(r"`(torch\.[A-Za-z_][\w.]*)`", text)
                             if n.rstrip("()") != f"torch.{node.name.lstrip('_')}"]
                    stubs[node.name] = named[0].rstrip("()") if named else ""
    return stubs


def scan_stubs(path: str) -> dict[str, str]:
    import zipfile

    found: dict[str, str] = {}
    with zipfile.ZipFile(path) as wheel:
        names = set(wheel.namelist())
        for member in STUB_FILES:
            if member in names:
                found.update(removed_stubs(wheel.read(member).decode("utf-8", "replace")))
    return found


def build() -> dict:
    """Scan every cached torch wheel; the table's data: per class, per attribute its forward began to read in a later
    release than the class's first, [the first release reading it, the first release whose class assigns it]."""
    from pathlib import Path

    from kb.apidrift.releases import CACHE, version_key

    wheels = {p.name.split("-")[1]: str(p) for p in (Path(CACHE) / "wheels").glob("torch-*.whl")}
    versions = sorted(wheels, key=version_key)
    scans = [scan_wheel(wheels[v]) for v in versions]
    classes: dict[str, dict[str, list[str]]] = {}
    for cls in sorted({c for scan in scans for c in scan}):
        present = [i for i, scan in enumerate(scans) if cls in scan]
        for attr in sorted({a for i in present for a in scans[i][cls][0]}):
            reading = [i for i in present if attr in scans[i][cls][0]]
            assigning = [i for i in present if attr in scans[i][cls][1]]
            # a later release began to read it, and read it to the last release that has the class
            if reading and reading[0] > present[0] and reading[-1] == present[-1] and assigning:
                classes.setdefault(cls, {})[attr] = [versions[reading[0]], versions[assigning[0]]]
    stubs: dict[str, list[str]] = {}
    for version in versions:  # the first release whose torch.x is a raising stub, and the replacement it names
        for name, replacement in scan_stubs(wheels[version]).items():
            stubs.setdefault(name, [version, replacement])
    return {"format": 1, "library": "torch", "versions": [versions[0], versions[-1]], "classes": classes,
            "stubs": stubs}


_TABLE: list = []  # the table, read once (not functools.lru_cache: its import is ~9 million instructions, turn 49)


def _table() -> dict:
    if not _TABLE:
        _TABLE.append(read_table(TABLE) or {})
    return _TABLE[0]


def first_read(cls: str, attr: str) -> tuple[str, str] | None:
    """(the first torch release whose ``cls.forward`` reads ``self.attr``, the first whose class assigns it), or None
    when the table does not record the pair."""
    got = _table().get("classes", {}).get(cls, {}).get(attr)
    return (got[0], got[1]) if got else None


def removed_stub(name: str = "", replacement: str = "") -> tuple[str, str, str] | None:
    """(the stub's name, the first torch release where `torch.name` is a stub that raises, the replacement it names)
    for ``name``, or for the one stub naming ``replacement`` when no name is given; None otherwise."""
    stubs = _table().get("stubs", {})
    if name:
        got = stubs.get(name)
        return (name, got[0], got[1]) if got else None
    found = [(n, got[0], got[1]) for n, got in stubs.items() if replacement and got[1] == replacement]
    return found[0] if len(found) == 1 else None


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m kb.apidrift.module_state", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build"])
    parser.parse_args(argv)
    data = build()
    print(write_table(TABLE, data), sum(len(v) for v in data["classes"].values()), "class attributes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
