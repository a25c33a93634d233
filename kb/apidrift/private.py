"""The private names each release's modules bind (`peft.utils._get_submodules`, `transformers.file_utils._BaseLazyModule`).

The API history (history.py) records public names only: extract.py drops a leading underscore. Code written against a
release's internals imports private names all the same, and a release renames or drops them without a deprecation, so
an "ImportError: cannot import name '_x' from 'm'" is drift like any other. This layer records, per library, module
and private name, its state in every release whose wheel is cached under ~/.cache/kb/apidrift/wheels:

- ``P``: the module's source binds the name at its top level (``def _x``, ``class _x``, ``_x = ...`` at column 0, or a
  ``from ... import _x`` at column 0 or in a top-level ``try``/``if``/``else`` block, not ``if TYPE_CHECKING:``);
- ``A``: the name does not occur in the module's source at all (a star import never brings a private name), or the
  module is not in the wheel: certainly not importable from it;
- ``U``: the name occurs but not in a binding the scan recognises (a def nested in a block, a tuple assignment):
  unknown, and never read as absent.

The scan reads lines, not an ``ast`` as exports.py and members.py do, because it reads every module of every cached
release: ``ast.parse`` of transformers 4.48.0's 1,670 modules takes ~17 s against ~0.3 s for this scan (measured
here), so the ~900 cached wheels would take hours. Hence ``U``: what the line scan cannot read is never taken as absent.

A class's private members (a ``def _x`` or ``_x = ...`` in its own body) are recorded the same way, except that
``A`` needs the name absent from every module of the wheel (a base class elsewhere may define it).
Stored run-length encoded ("P12A3U1") in tables/api-history-private.json.gz, read only for an import of a private
name or a missing private attribute (kb/apidrift/answer.py). Libraries whose files are not all cached (bitsandbytes) are left out;
deepspeed, whose 125 releases' sdists are all cached (it ships no wheels but its latest), is scanned from its sdists.
torch (its 52 releases' wheels cached) is scanned in the modules of SCOPES only (the top level, torch._utils,
torch.distributed, torch.utils, torch.nn, ...: where code written against one release's internals reaches,
`_all_gather_base`, `_reduce_scatter_base`, `_accumulate`), without its classes' private members (a member's absence
needs every module of the wheel scanned).

    python -m kb.apidrift.private build            # scan the cached wheels, write the table (a few minutes)
    python -m kb.apidrift.private build torch      # rescan one library, the others' records kept
"""

from __future__ import annotations


from kb.apidrift.json_table import read_table, write_table
from kb.knowledge.precompiled import Deferred

TABLE = "api-history-private.json.gz"
LIBRARIES = ("transformers", "peft", "trl", "accelerate", "datasets", "huggingface_hub", "deepspeed", "torch")
# the modules scanned of a library too large to scan whole: a module is in scope when it is one of these or under one
# ("torch" itself: only the top level); no class members recorded for it
SCOPES = {"torch": ("torch", "torch._utils", "torch._six", "torch.distributed", "torch.utils", "torch.nn", "torch.cuda",
                    "torch.optim", "torch.autograd", "torch.amp", "torch.backends", "torch.hub", "torch.serialization",
                    "torch.jit", "torch.onnx", "torch.fx", "torch.ao", "torch.quantization", "torch.testing")}


def in_scope(lib: str, module: str) -> bool:
    """Whether the scan of ``lib`` reads ``module`` (every module of a library without SCOPES)."""
    scopes = SCOPES.get(lib)
    if scopes is None:
        return True
    return module in scopes or any(module.startswith(p + ".") for p in scopes if p != lib)

_DEF = Deferred(r"(?:class|def|async def)\s+(_[A-Za-z]\w*)|(_[A-Za-z]\w*)\s*(?::[^=\n]*)?=(?!=)")
_FROM = Deferred(r"from\s+[\w.]+\s+import\s+(.*)")
_BLOCK = Deferred(r"(?:try|except\b.*|else|finally|if\b.*|elif\b.*|with\b.*):\s*(?:#.*)?$")
_WORD = Deferred(r"(?<![\w.])_[A-Za-z]\w*")


def bound_names(source: str) -> set[str]:
    """The private names a module's source binds at its top level (see the module's docstring)."""
    names: set[str] = set()
    top_block = False  # inside a top-level try/if/else block (not a def or class body)
    pending: str | None = None  # a parenthesised `from x import (` still open
    for line in source.split("\n"):
        stripped = line.strip()
        if pending is not None:
            pending += " " + stripped.split("#", 1)[0]  # a comment inside the parentheses names nothing
            if ")" not in stripped:
                continue
            names.update(_imported(pending))
            pending = None
            continue
        if not stripped or stripped.startswith("#"):
            continue
        indented = line[:1] in (" ", "\t")
        if not indented:
            # a top-level try/if/else block binds at import, except `if TYPE_CHECKING:` (type checkers only)
            top_block = bool(_BLOCK.match(stripped)) and "TYPE_CHECKING" not in stripped
            m = _DEF.match(stripped)
            if m:
                names.add(m.group(1) or m.group(2))
        if not indented or top_block:
            m = _FROM.match(stripped)
            if m:
                clause = m.group(1).split("#", 1)[0]  # `from x import (  # a comment`: the comment names nothing
                if "(" in clause and ")" not in clause:
                    pending = clause
                else:
                    names.update(_imported(m.group(1)))
    return {n for n in names if not n.startswith("__")}


_CLASS = Deferred(r"class\s+([A-Za-z_]\w*)\s*[(:]")
_MEMBER = Deferred(r"(?:async\s+)?def\s+(_[A-Za-z]\w*)\s*\(|(_[A-Za-z]\w*)\s*(?::[^=\n]*)?=(?!=)")


def class_members(source: str) -> dict[str, set[str]]:
    """The private methods and class attributes each top-level class of a module defines in its own body (a ``def
    _x`` or ``_x = ...`` at the body's first indentation; not nested classes' nor attributes set on ``self``)."""
    found: dict[str, set[str]] = {}
    current: str | None = None
    body: str | None = None  # the class body's indentation, read off its first line
    for line in source.split("\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line[:1] not in (" ", "\t"):
            m = _CLASS.match(stripped)
            current, body = (m.group(1), None) if m else (None, None)
            if current is not None:
                found.setdefault(current, set())
            continue
        if current is None:
            continue
        indent = line[: len(line) - len(line.lstrip())]
        if body is None:
            body = indent
        if indent != body:
            continue
        m = _MEMBER.match(stripped)
        if m:
            name = m.group(1) or m.group(2)
            if not name.startswith("__"):
                found[current].add(name)
    return {cls: names for cls, names in found.items() if names}


def _imported(clause: str) -> set[str]:
    """Private names a ``from m import a, _b as _c`` clause binds (the alias when there is one)."""
    found = set()
    for part in clause.replace("(", " ").replace(")", " ").split("#")[0].split(","):
        words = part.split()
        if not words:
            continue
        name = words[-1] if len(words) == 3 and words[1] == "as" else words[0]
        if name.startswith("_") and not name.startswith("__") and name.isidentifier():
            found.add(name)
    return found


def scan_wheel(path: str, lib: str) -> dict[str, tuple[set[str], set[str], dict[str, set[str]]]]:
    """module -> (private names it binds, private words its source mentions, its classes' private members)."""
    out: dict[str, tuple[set[str], set[str], dict[str, set[str]]]] = {}
    for member, read in _sources(path, lib):
        module = member[:-3].replace("/", ".").removesuffix(".__init__")
        if not in_scope(lib, module):
            continue
        source = read().decode("utf-8", "replace")
        out[module] = (bound_names(source), set(_WORD.findall(source)),
                       {} if lib in SCOPES else class_members(source))
    return out


def _sources(path: str, lib: str):
    """(name inside the package root, reader) of each .py file of `lib` in a wheel, or in an sdist (deepspeed ships
    only sdists: `deepspeed-0.14.0/deepspeed/x.py`, the first folder dropped)."""
    if path.endswith(".tar.gz"):
        import tarfile

        with tarfile.open(path, "r:gz") as tar:
            for item in tar.getmembers():
                name = item.name.split("/", 1)[1] if "/" in item.name else item.name
                if item.isfile() and name.endswith(".py") and name.startswith(lib + "/"):
                    handle = tar.extractfile(item)
                    if handle is not None:
                        data = handle.read()
                        yield name, lambda data=data: data
        return
    import zipfile

    with zipfile.ZipFile(path) as wheel:
        for member in wheel.namelist():
            if member.endswith(".py") and member.startswith(lib + "/"):
                yield member, lambda member=member: wheel.read(member)


def _rle(states: str) -> str:
    out, i = [], 0
    while i < len(states):
        j = i
        while j < len(states) and states[j] == states[i]:
            j += 1
        out.append(f"{states[i]}{j - i}")
        i = j
    return "".join(out)


_RUN = Deferred(r"([PAU])(\d+)")  # (through the regex cache: an API-history answer reads the states, turn 49)


def _unrle(text: str) -> str:
    return "".join(m[0] * int(m[1]) for m in _RUN.findall(text))


def build(libraries: tuple[str, ...] = LIBRARIES, workers: int = 2) -> dict:
    """Scan every cached wheel of each library; the table's data (versions scanned, per module the names' states)."""
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path

    from kb.apidrift.releases import CACHE, version_key

    wheels = Path(CACHE) / "wheels"
    data: dict = {"format": 1, "libraries": {}}
    for lib in libraries:
        files = {p.name[len(lib) + 1:].split("-")[0].removesuffix(".tar.gz"): str(p)
                 for p in [*wheels.glob(f"{lib}-*.tar.gz"), *wheels.glob(f"{lib}-*.whl")]}  # a wheel over an sdist
        versions = sorted(files, key=version_key)
        with ProcessPoolExecutor(workers) as pool:
            scans = list(pool.map(scan_wheel, [files[v] for v in versions], [lib] * len(versions)))
        names: dict[str, dict[str, str]] = {}
        for module in sorted({m for scan in scans for m in scan}):
            bound = sorted({n for scan in scans for n in scan.get(module, (set(), set(), {}))[0]})
            for name in bound:
                states = []
                for scan in scans:
                    got = scan.get(module)
                    states.append("A" if got is None or name not in got[1] else "P" if name in got[0] else "U")
                names.setdefault(module, {})[name] = _rle("".join(states))
        # a class's private member: absent only where no module of the wheel mentions the name (a base class
        # elsewhere may define it: absence from the class's own module proves nothing)
        words = [set().union(*(got[1] for got in scan.values())) for scan in scans]
        members: dict[str, dict[str, str]] = {}
        for module in sorted({m for scan in scans for m in scan}):
            classes = sorted({c for scan in scans for c in scan.get(module, (set(), set(), {}))[2]})
            for cls in classes:
                defined = sorted({n for scan in scans for n in scan.get(module, (set(), set(), {}))[2].get(cls, ())})
                for name in defined:
                    states = []
                    for scan, known in zip(scans, words):
                        got = scan.get(module)
                        states.append("P" if got is not None and name in got[2].get(cls, ()) else
                                      "A" if name not in known else "U")
                    members.setdefault(f"{module}.{cls}", {})[name] = _rle("".join(states))
        data["libraries"][lib] = {"versions": versions, "names": names, "members": members}
    return data


def write(data: dict, path: str | None = None) -> str:
    return write_table(TABLE, data, path)


_TABLE: list = []  # the table, read once (not functools.lru_cache: its import is ~9 million instructions, turn 49)


def _table() -> dict | None:
    if not _TABLE:
        _TABLE.append(read_table(TABLE))
    return _TABLE[0]


def private_states(lib: str, module: str, name: str) -> tuple[list[str], str] | None:
    """(the scanned releases of ``lib``, the name's state in each: P bound, A absent, U unknown), or None when the
    library is not scanned or no scanned release binds ``name`` in ``module``."""
    table = _table()
    entry = (table or {}).get("libraries", {}).get(lib)
    if entry is None:
        return None
    found = entry["names"].get(module, {}).get(name)
    return None if found is None else (entry["versions"], _unrle(found))


def module_names(lib: str, module: str) -> dict[str, str]:
    """Every private name a scanned release of ``lib`` binds in ``module``, with its states (as private_states)."""
    entry = (_table() or {}).get("libraries", {}).get(lib)
    return {} if entry is None else {n: _unrle(t) for n, t in entry["names"].get(module, {}).items()}


def private_member_states(cls: str, name: str) -> tuple[str, str, list[str], str] | None:
    """(library, class path, scanned releases, states) of the one scanned class named ``cls`` (by its short name)
    whose body defines the private member ``name`` in some release; None when none or several classes do."""
    found = []
    dotted = "." + cls  # (a path whose last part is ``cls``: endswith, not ~24,000 rsplits a question, turn 49)
    for lib, entry in ((_table() or {}).get("libraries") or {}).items():
        for path, defined in entry.get("members", {}).items():
            if (path.endswith(dotted) or path == cls) and "." not in cls and name in defined:
                found.append((lib, path, entry["versions"], _unrle(defined[name])))
    return found[0] if len(found) == 1 else None


def main(argv: list[str]) -> int:
    if argv[:1] != ["build"] or any(lib not in LIBRARIES for lib in argv[1:]):
        print("usage: python -m kb.apidrift.private build [LIBRARY ...]")
        return 2
    import time

    start = time.time()
    if argv[1:]:  # rescan the named libraries, keep the others' records
        data = _table() or {"format": 1, "libraries": {}}
        data["libraries"].update(build(tuple(argv[1:]))["libraries"])
    else:
        data = build()
    path = write(data)
    count = sum(len(names) for lib in data["libraries"].values() for names in lib["names"].values())
    print(f"wrote {path}: {count} private names of {len(data['libraries'])} libraries ({time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
