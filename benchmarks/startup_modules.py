"""Where `kb diagnose`'s module imports go, module by module: importlib's own work against the module's.

Each round starts a fresh process per tree (in turn, the order rotating each round) that runs the same path as
`kb diagnose FILE` in-process (startup_phases.py's: kb.cli, the engine, load_index, the diagnosis, the document,
the renderer, the text) with importlib's steps timed for every kb module it imports:

  find     the meta path's find_spec (PathFinder: the folder's listing, cached, and the file's stat)
  stat     the loader's stat of the source, which the .pyc's timestamp is checked against
  read     reading the .pyc (open, read, close)
  unmarshal  marshal.loads of the code object
  exec     running the module's body, less the imports it starts (their own rows)
  other    the rest of the import's own time: the import lock, the module object, its attributes, the .pyc's
           header check, sys.modules
  self     the whole import less the nested imports (what ``-X importtime`` calls self)

The timers wrap the frozen importlib's functions (the wrappers' own cost falls into "other" and "self"), so the
columns are a breakdown, not a cheaper total; the last line gives the uninstrumented process's time to the end for
comparison.
Medians over the rounds, in microseconds. Byte-compile the trees first (PYTHONDONTWRITEBYTECODE unset).

    python benchmarks/startup_modules.py [--input FILE] [--rounds 30] TREE [TREE...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup_phases import child_stdout, workspace  # noqa: E402 - the same child process and folders
COLUMNS = ("find", "stat", "read", "unmarshal", "exec", "other", "self")
CHILD = r"""
import sys, time, gc, io
clock = time.perf_counter_ns
start = clock()
sys.path.insert(0, TREE)
gc.disable()
if INSTRUMENT:
    import marshal as _marshal
    import _frozen_importlib as B, _frozen_importlib_external as E
    rows = {}       # name -> [find, stat, read, unmarshal, exec, total, nested]
    stack = []      # names being imported, innermost last
    def row(name):
        return rows.setdefault(name, [0, 0, 0, 0, 0, 0, 0])
    find_and_load = B._find_and_load
    def timed_find_and_load(name, import_):
        if not name.startswith("kb") or name in sys.modules:
            return find_and_load(name, import_)
        stack.append(name)
        t0 = clock()
        try:
            return find_and_load(name, import_)
        finally:
            spent = clock() - t0
            stack.pop()
            row(name)[5] += spent
            if stack:
                row(stack[-1])[6] += spent
    B._find_and_load = timed_find_and_load
    find_spec = B._find_spec
    def timed_find_spec(name, path, target=None):
        t0 = clock()
        spec = find_spec(name, path, target)
        if stack and stack[-1] == name:
            row(name)[0] += clock() - t0
        return spec
    B._find_spec = timed_find_spec
    Loader = E.SourceFileLoader
    path_stats, get_data = Loader.path_stats, Loader.get_data
    def timed_path_stats(self, path):
        t0 = clock(); out = path_stats(self, path)
        if stack: row(stack[-1])[1] += clock() - t0
        return out
    def timed_get_data(self, path):
        t0 = clock(); out = get_data(self, path)
        if stack: row(stack[-1])[2] += clock() - t0
        return out
    Loader.path_stats, Loader.get_data = timed_path_stats, timed_get_data
    class TimedMarshal:
        @staticmethod
        def loads(data):
            t0 = clock(); out = _marshal.loads(data)
            if stack: row(stack[-1])[3] += clock() - t0
            return out
        dumps = staticmethod(_marshal.dumps)
    E.marshal = TimedMarshal
    calls = B._call_with_frames_removed
    def timed_calls(f, *args, **kwds):
        if f is not exec or not stack:
            return calls(f, *args, **kwds)
        name = stack[-1]
        nested_before = row(name)[6]
        t0 = clock()
        try:
            return calls(f, *args, **kwds)
        finally:
            r = row(name)
            r[4] += clock() - t0 - (r[6] - nested_before)
    B._call_with_frames_removed = timed_calls
    E._bootstrap._call_with_frames_removed = timed_calls
import kb.cli
kb.cli._paused.append(True)
import kb.cli.diagnose
from kb.diagnose.diagnosis import diagnose_reader
from kb.diagnose.document import diagnosis_document
from kb.diagnose.input import open_input
from kb.knowledge.index import load_index
knowledge = load_index()
kb.cli.started_up()
doc = diagnosis_document(diagnose_reader(open_input(INPUT), knowledge, None))
from kb.render.diagnosis import format_diagnosis
from kb.cli.output import Style
from kb.render.sanitize import sanitize_data
format_diagnosis(sanitize_data(doc), width=80, full=False, style=Style(io.StringIO()))
end = clock()
if INSTRUMENT:
    for name, (f, s, rd, u, x, total, nested) in rows.items():
        own = total - nested
        print(name, f, s, rd, u, x, own - f - s - rd - u - x, own)
print("<whole>", (end - start))
"""


def run(tree: Path, source: Path, cache: Path, folder: Path, instrument: bool) -> dict[str, list[int]]:
    code = f"TREE = {str(tree)!r}; INPUT = {str(source)!r}; INSTRUMENT = {instrument}\n" + CHILD
    out = child_stdout(tree, code, cache, folder)
    return {name: [int(v) for v in values] for name, *values in (line.split() for line in out.splitlines())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--input", type=Path, help="the input (default: a one-line dtype error)")
    parser.add_argument("--rounds", type=int, default=30)
    ns = parser.parse_args()
    trees = [t.resolve() for t in ns.trees]
    with tempfile.TemporaryDirectory(prefix="kb-modules-") as tmp:
        folder, source, caches = workspace(tmp, trees, ns.input)
        for tree in trees:
            for _ in range(3):
                run(tree, source, caches[tree], folder, False)
        samples: dict[Path, dict[str, list[list[int]]]] = {t: {} for t in trees}
        plain: dict[Path, list[int]] = {t: [] for t in trees}
        for r in range(ns.rounds):
            for tree in trees[r % len(trees):] + trees[:r % len(trees)]:
                for name, values in run(tree, source, caches[tree], folder, True).items():
                    samples[tree].setdefault(name, []).append(values)
                plain[tree].append(run(tree, source, caches[tree], folder, False)["<whole>"][0])
    print(f"{ns.rounds} rounds, alternating; medians in microseconds; load average {os.getloadavg()[0]:.2f};"
          f" {sys.executable} {sys.version.split()[0]}; input {ns.input or 'one line'}")
    for tree in trees:
        rows = {name: [statistics.median(col) for col in zip(*values)]
                for name, values in samples[tree].items() if name != "<whole>"}
        print(f"\n{tree}: {len(rows)} kb modules")
        print(f"  {'module':34}" + "".join(f"{c:>10}" for c in COLUMNS) + f"{'pyc bytes':>11}")
        for name, values in sorted(rows.items(), key=lambda item: -item[1][-1]):
            print(f"  {name:34}" + "".join(f"{v / 1000:10.3f}" for v in values) + f"{_pyc_size(tree, name):11d}")
        sums = [sum(col) for col in zip(*rows.values())]
        print(f"  {'sum':34}" + "".join(f"{v / 1000:10.3f}" for v in sums))
        whole = statistics.median(samples[tree]["<whole>"][i][0] for i in range(ns.rounds))
        print(f"  start to end of the text, instrumented {whole / 1e6:.2f} ms,"
              f" uninstrumented {statistics.median(plain[tree]) / 1e6:.2f} ms (min {min(plain[tree]) / 1e6:.2f})")
    return 0


def _pyc_size(tree: Path, name: str) -> int:
    parts = name.split(".")
    base = tree.joinpath(*parts)
    source = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    cached = source.parent / "__pycache__" / f"{source.stem}.{sys.implementation.cache_tag}.pyc"
    return cached.stat().st_size if cached.exists() else 0


if __name__ == "__main__":
    raise SystemExit(main())
