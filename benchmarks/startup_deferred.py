"""What building fixed patterns at first use saves (kb/knowledge/precompiled.py Deferred, turn 45), this tree against
another, in fresh processes, alternating, CPU time (process_time) of each step in the child:

- importing kb/diagnose/parser.py and match.py (their dependencies imported first);
- importing kb/diagnose/flatten.py (what a traceback's '", line ' mark brings in);
- the versions scanner's patterns (kb/diagnose/versions.py _patterns), as the first version line builds them.

Each tree answers from its own cache folder, warmed first (the patterns are in the regex cache, as on any machine
that has run kb before). Least and median of the rounds, in microseconds.

    python benchmarks/startup_deferred.py --old-tree DIR [--rounds 40]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from startup_support import alternate, tree_env, tree_options

STEPS = ("import parser+match", "import flatten", "versions patterns")
CHILD = r"""
import sys, time
clock = time.process_time
import kb.diagnose.errors, kb.diagnose.redact, kb.diagnose.textclean, kb.diagnose.patterns, kb.knowledge.index
from kb.knowledge import precompiled
precompiled.pattern("turn45")  # (the cache file opened: its cost is not this benchmark's)
t0 = clock()
import kb.diagnose.parser, kb.diagnose.match
t1 = clock()
import kb.diagnose.flatten
t2 = clock()
from kb.diagnose.versions import _patterns
libs = ("accelerate", "bitsandbytes", "datasets", "peft", "torch", "transformers", "trl")
t3 = clock()
_patterns(libs)
t4 = clock()
print(t1 - t0, t2 - t1, t4 - t3)
"""


def run(tree: Path, cache: Path) -> list[float]:
    out = subprocess.run([sys.executable, "-c", CHILD], env=tree_env(tree, cache, bytecode=True), capture_output=True,
                         text=True, check=True, cwd=cache)
    return [float(v) * 1e6 for v in out.stdout.split()]


def main() -> int:
    ns, trees = tree_options(__doc__.split("\n\n")[0], 40)
    with tempfile.TemporaryDirectory(prefix="kb-deferred-") as tmp:
        caches = {name: Path(tmp) / name for name in trees}
        for name, tree in trees.items():
            caches[name].mkdir()
            for _ in range(2):  # warm: the regex cache
                run(tree, caches[name])
        results = alternate(ns.rounds, list(trees), lambda name: run(trees[name], caches[name]))
    print(f"{ns.rounds} rounds, alternating; child process_time in us (least / median); load average "
          f"{os.getloadavg()[0]:.2f}; {sys.executable} {sys.version.split()[0]}")
    for name, tree in trees.items():
        columns = list(zip(*results[name]))
        print(f"  {name} ({tree}): " + ", ".join(f"{step} {min(c):.0f} / {statistics.median(c):.0f}"
                                                 for step, c in zip(STEPS, columns)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
