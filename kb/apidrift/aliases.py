"""Which of a module's names it only imports: the name's home is elsewhere (issue #25, turn 44).

The history (history.py) records what `from <module> import NAME` can import, imports included: torch 2.x's
`torch.nn.modules.container` does `from collections import OrderedDict, abc as container_abcs`, so the history says it
exports `container_abcs`. When a name went from its old module, the answer looks for the modules that export it in the
latest release and tells to import it from there; a module that merely imports the name is no home for it (torch._six's
`container_abcs` was Python's `collections.abc` under another name: `from torch.nn.modules.container import
container_abcs` would reach it through one of torch's internals). This table says, per library, for the latest release
the history covers, which exported names each module binds by an import, and where those from outside the library come
from:

- ``external``: {module: {name: origin}}, a name bound by an import from another distribution or Python's standard
  library (``container_abcs`` -> ``collections.abc``: the import's source module and the name it took, dotted);
- ``imported``: {module: [names]}, a name bound by an import from another module of the library itself; its home is
  the module that defines it (ModuleIndex.resolve follows the import).

Read from the release's wheel with the same ModuleIndex as the history's exports (exports.py), so the two agree on
what each module binds. Stored in tables/api-history-aliases.json.gz; the answer reads it only when it looks for
where a gone name is importable from (kb/apidrift/answer.py).

    python -m kb.apidrift.aliases build      # scan the latest cached release of each library, write the table
"""

from __future__ import annotations

from functools import lru_cache

from kb.apidrift.json_table import read_table, write_table

TABLE = "api-history-aliases.json.gz"


def scan(lib: str, path) -> dict:  # noqa: ANN001 - a Path to a wheel or sdist
    """{"external": {module: {name: origin}}, "imported": {module: [names]}} of one release's file (see the module's
    docstring): the public names each module exports (as the history reads them) that an import binds."""
    from kb.apidrift.exports import ModuleIndex
    from kb.apidrift.extract import read_module
    from kb.apidrift.history import targets
    from kb.apidrift.wheel import Wheel

    wheel = Wheel(path, lib)
    spec = targets()[lib]
    index = ModuleIndex.for_spec(wheel, spec)
    external: dict[str, dict[str, str]] = {}
    imported: dict[str, list[str]] = {}
    for module in wheel.modules():
        if not read_module(spec, module) or index.is_light(module):
            continue  # a light module's names are its own defs and __all__, read by a regex (exports.light_exports)
        bindings = index.bindings(module)
        for name in sorted(index.exports(module)):
            binding = bindings.get(name)
            if binding is None or binding[0] not in ("from", "module"):
                continue
            source = binding[1] if binding[0] == "module" else f"{binding[1]}.{binding[2]}"
            if source.split(".")[0] != wheel.package:
                external.setdefault(module, {})[name] = source
            elif binding[0] == "from" or source != f"{module}.{name}":
                imported.setdefault(module, []).append(name)
    return {"external": external, "imported": imported}


def build(libraries: tuple[str, ...] | None = None) -> dict:
    """The table: for each library of the history, its latest covered release scanned (see scan)."""
    from pathlib import Path

    from kb.apidrift.history import load_history
    from kb.apidrift.releases import CACHE, find_wheel

    history = load_history()
    wheels = Path(CACHE) / "wheels"
    data: dict = {"format": 1, "libraries": {}}
    for lib in libraries or tuple(history.libraries()):
        version = history.versions(lib)[-1]
        path = find_wheel(lib, version, wheels)
        if path is None:
            raise SystemExit(f"{lib} {version}: not in {wheels} (python -m kb.apidrift build fetches it)")
        data["libraries"][lib] = {"version": version, **scan(lib, path)}
    return data


def write(data: dict, path: str | None = None) -> str:
    return write_table(TABLE, data, path)


@lru_cache(maxsize=1)
def _table() -> dict:
    return read_table(TABLE) or {}


def scanned_version(lib: str) -> str | None:
    """The release of ``lib`` the table was read from; None when the library is not in it."""
    return ((_table().get("libraries") or {}).get(lib) or {}).get("version")


def external_origin(lib: str, module: str, name: str, version: str) -> str | None:
    """Where ``module`` of ``lib`` ``version`` imports ``name`` from outside the library (``collections.abc``), or None:
    the name is its own, imported from the library itself, the module is not scanned, or the table was read from
    another release."""
    entry = (_table().get("libraries") or {}).get(lib) or {}
    if entry.get("version") != version:
        return None
    return (entry.get("external") or {}).get(module, {}).get(name)


def imports_name(lib: str, module: str, name: str, version: str) -> bool:
    """Whether ``module`` of ``lib`` ``version`` binds ``name`` by an import (from the library or from outside it): the
    module re-exports the name, it is not its home. False when the table was read from another release."""
    entry = (_table().get("libraries") or {}).get(lib) or {}
    if entry.get("version") != version:
        return False
    return name in (entry.get("imported") or {}).get(module, ()) or name in (entry.get("external") or {}).get(module, {})


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "build":
        print("usage: python -m kb.apidrift.aliases build [LIBRARY ...]")
        return 2
    import time

    start = time.time()
    data = build(tuple(argv[1:]) or None)
    if argv[1:]:  # a partial build keeps the other libraries' entries
        old = dict(_table().get("libraries") or {})
        old.update(data["libraries"])
        data["libraries"] = old
    path = write(data)
    counts = {lib: sum(len(v) for v in e["external"].values()) for lib, e in data["libraries"].items()}
    print(f"wrote {path}: external aliases per library {counts} ({time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
