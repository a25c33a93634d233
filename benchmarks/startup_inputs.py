"""`kb diagnose FILE`'s CPU time on several small inputs, this tree against another, against `python -c pass`.

Each round runs, in an order rotating by one each round, ``python -c pass`` and each tree's bin/kb (as the wheel
installs it: startup_paths.py) on every input: the child's user + system CPU time (wait4). Both trees byte-compiled,
each answering from its own cache folder (warmed first). Medians and minima per input and tree, and the ratio of each
median to ``python -c pass``'s median of the same rounds. The inputs: the FILEs given, else the one-line dtype error,
examples/*.txt, and three one-line errors (an attribute of None, a missing module, a ValueError no signature knows:
the learned fallback).

    python benchmarks/startup_inputs.py --old-tree DIR [--rounds 20] [FILE...]
"""

from __future__ import annotations

import compileall
import os
import statistics
import sys
import tempfile
from pathlib import Path

from startup_paths import ONE_LINE, measure, shared_script
from startup_support import REPO, alternate, tree_env, tree_options

SMALL = {
    "dtype (one line)": ONE_LINE,
    "NoneType .shape": "AttributeError: 'NoneType' object has no attribute 'shape'\n",
    "No module named 'peft'": "ModuleNotFoundError: No module named 'peft'\n",
    "ValueError (fallback)": "ValueError: foo bar baz qux\n",
}


def main() -> int:
    ns, trees = tree_options(__doc__.split("\n\n")[0], 20, files={"nargs": "*", "type": Path})
    with tempfile.TemporaryDirectory(prefix="kb-inputs-") as tmp:
        inputs: dict[str, Path] = {}
        if ns.files:
            inputs = {str(f): f.resolve() for f in ns.files}
        else:
            for i, (name, text) in enumerate(SMALL.items()):
                inputs[name] = Path(tmp) / f"input-{i}.txt"
                inputs[name].write_text(text)
            inputs.update({f"examples/{p.name}": p for p in sorted((REPO / "examples").glob("*.txt"))})
        runs: dict[str, tuple[list[str], dict[str, str] | None, Path]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], None, Path(tmp))}
        for tree_name, tree in trees.items():
            compileall.compile_dir(str(tree / "kb"), quiet=1)
            env = tree_env(tree, Path(tmp) / f"cache-{tree_name}")
            installed = shared_script(tree)
            if installed is None:
                raise SystemExit(f"{tree}: no bin/kb shared script")
            script = Path(tmp) / f"bin-{tree_name}" / "kb"
            script.parent.mkdir()
            script.write_text(installed.read_text())
            for name, path in inputs.items():
                runs[f"{tree_name}|{name}"] = ([sys.executable, str(script), "diagnose", str(path)], env, tree)
        for argv, env, cwd in runs.values():  # warm: caches, page cache
            for _ in range(2):
                measure(argv, env, cwd)
        results = alternate(ns.rounds, list(runs), lambda name: measure(*runs[name]))
    cpu = {name: [c for _, c in values] for name, values in results.items()}
    base = statistics.median(cpu["python -c pass"])
    print(f"{ns.rounds} rounds, alternating; CPU = user+system of the child (wait4), ms; load average "
          f"{os.getloadavg()[0]:.2f}; {sys.executable} {sys.version.split()[0]}")
    print(f"  python -c pass: median {base:.1f} (min {min(cpu['python -c pass']):.1f})")
    print(f"  {'input':40s} {'old median (min)':>18s} {'new median (min)':>18s}   old x   new x")
    for name in inputs:
        old, new = cpu[f"old|{name}"], cpu[f"new|{name}"]
        print(f"  {name:40s} {statistics.median(old):8.1f} ({min(old):6.1f}) {statistics.median(new):8.1f} "
              f"({min(new):6.1f})   {statistics.median(old) / base:5.2f}  {statistics.median(new) / base:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
