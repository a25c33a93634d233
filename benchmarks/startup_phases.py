"""`kb diagnose`'s start-up by phase, in-process, for one or more trees: where the milliseconds kb adds go.

Each round starts one fresh process per tree (in turn, the order rotating each round), which times with perf_counter
(``--cpu``: process_time, the process's CPU time: on a shared machine a descheduled child's wall time swells),
the cyclic collector set as kb.cli.script sets it (off until the index is loaded): importing kb.cli, kb.cli.diagnose,
the engine's modules (what run_diagnose imports), load_index, the diagnosis, the document (the one screen's, where the
tree builds one: kb/diagnose/document.py screen_document), importing the text renderer, and the text. Medians over the rounds; the number of kb modules imported at the end. Each tree answers from
its own knowledge and cache folder (warmed first); byte-compile the trees first (PYTHONDONTWRITEBYTECODE unset).

    python benchmarks/startup_phases.py [--input FILE] [--rounds 30] [--cpu] TREE [TREE...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"
PHASES = ("import kb.cli", "import kb.cli.diagnose", "import the engine", "load_index", "diagnose", "document",
          "import the renderer", "render")
CHILD = r"""
import sys, time, gc, io
t = [CLOCK()]
sys.path.insert(0, TREE)
gc.disable()
import kb.cli
kb.cli._paused.append(True)
t.append(CLOCK())
import kb.cli.diagnose
t.append(CLOCK())
from kb.diagnose.diagnosis import diagnose_reader
from kb.diagnose.document import diagnosis_document
from kb.diagnose.input import open_input
from kb.knowledge.index import load_index
from kb.knowledge.model import KnowledgeError
t.append(CLOCK())
knowledge = load_index()
try:  # (turn 42) a one-block file is read with the collector still off, as run_diagnose does; an older tree: on
    from kb.diagnose.input import fits_one_block
except ImportError:
    kb.cli.started_up()
else:
    kb.cli.started_up(fits_one_block(INPUT))
t.append(CLOCK())
diagnosis = diagnose_reader(open_input(INPUT), knowledge, None)
t.append(CLOCK())
try:  # (turn 48) the one screen's document, as `kb diagnose` builds it for its text; an older tree: the whole one
    from kb.diagnose.document import screen_document
except ImportError:
    screen_document = diagnosis_document
doc = screen_document(diagnosis)
t.append(CLOCK())
from kb.render.diagnosis import format_diagnosis
from kb.cli.output import Style
from kb.render.sanitize import sanitize_data
t.append(CLOCK())
format_diagnosis(sanitize_data(doc), width=80, full=False, style=Style(io.StringIO()))
t.append(CLOCK())
print(" ".join(f"{(b - a) * 1000:.4f}" for a, b in zip(t, t[1:])), sum(1 for m in sys.modules if m.startswith("kb")))
"""


def child_stdout(tree: Path, code: str, cache: Path, folder: Path) -> str:
    """What ``python -c code`` prints, run in ``folder`` with ``cache`` as kb's cache folder and no KB_ setting or
    PYTHONDONTWRITEBYTECODE from this environment (benchmarks/startup_modules.py runs its child the same way)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KB_", "PYTHONDONTWRITEBYTECODE"))}
    env["KB_CACHE_DIR"] = str(cache)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=folder, check=False)
    if proc.returncode:
        raise SystemExit(f"{tree}: {proc.stderr}")
    return proc.stdout


def workspace(tmp: str, trees: list[Path], given: Path | None) -> tuple[Path, Path, dict[Path, Path]]:
    """In ``tmp``: an empty current folder (`python -c` lists it at the first import), the input (``given``, or a
    one-line dtype error written there) and a cache folder for each tree."""
    folder = Path(tmp) / "cwd"
    folder.mkdir()
    source = given.resolve() if given else Path(tmp) / "one-line.txt"
    if given is None:
        source.write_text(ONE_LINE)
    return folder, source, {t: Path(tmp) / f"cache-{i}" for i, t in enumerate(trees)}


def run(tree: Path, source: Path, cache: Path, folder: Path, clock: str = "perf_counter") -> tuple[list[float], int]:
    code = f"import time; CLOCK = time.{clock}; TREE = {str(tree)!r}; INPUT = {str(source)!r}\n" + CHILD
    *values, modules = child_stdout(tree, code, cache, folder).split()
    return [float(v) for v in values], int(modules)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--input", type=Path, help="the input (default: a one-line dtype error)")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--cpu", action="store_true", help="time with process_time (CPU), not perf_counter (wall)")
    ns = parser.parse_args()
    clock = "process_time" if ns.cpu else "perf_counter"
    trees = [t.resolve() for t in ns.trees]
    with tempfile.TemporaryDirectory(prefix="kb-phases-") as tmp:
        folder, source, caches = workspace(tmp, trees, ns.input)
        for tree in trees:  # warm: the index, the regex cache, the advice facts
            for _ in range(3):
                run(tree, source, caches[tree], folder)
        results: dict[Path, list[list[float]]] = {t: [] for t in trees}
        modules: dict[Path, int] = {}
        for r in range(ns.rounds):
            for tree in trees[r % len(trees):] + trees[:r % len(trees)]:
                values, modules[tree] = run(tree, source, caches[tree], folder, clock)
                results[tree].append(values)
    print(f"{ns.rounds} rounds, alternating; in-process {clock} medians (ms); load average {os.getloadavg()[0]:.2f};"
          f" {sys.executable} {sys.version.split()[0]}; input {ns.input or 'one line'}")
    for tree in trees:
        rows = results[tree]
        medians = [statistics.median(col) for col in zip(*rows)]
        print(f"  {tree}: total {statistics.median(sum(r) for r in rows):.2f} ms, {modules[tree]} kb modules")
        print("    " + ", ".join(f"{name} {m:.2f}" for name, m in zip(PHASES, medians)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
