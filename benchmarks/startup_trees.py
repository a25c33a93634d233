"""`kb diagnose` start-up of several trees, round after round, against `python -c pass`: the child's CPU time.

Each tree is started as uv's console script does it (``from kb.cli import script``, no ``re``, no runpy), on a
one-line input, byte-compiled first and with its cache warmed; ``python -c pass`` runs in the same rounds. For
a change that is not in any commit yet (say one import line), copy the tree, edit the copy, and name both:

    python benchmarks/startup_trees.py /work/main . /tmp/edited-copy [--rounds 60]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import tempfile
from pathlib import Path

ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"
SCRIPT = """import sys
sys.path.insert(0, {tree!r})
from kb.cli import script
if __name__ == "__main__":
    sys.exit(script())
"""


def cpu_ms(argv: list[str]) -> float:
    pid = os.posix_spawn(argv[0], argv, dict(os.environ),
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{argv} failed")
    return (usage.ru_utime + usage.ru_stime) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=60)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-trees-") as tmp:
        one = Path(tmp) / "one-line.txt"
        one.write_text(ONE_LINE)
        runs = {"python -c pass": [sys.executable, "-c", "pass"]}
        for i, tree in enumerate(ns.trees):
            tree = tree.resolve()
            compileall.compile_dir(str(tree / "kb"), quiet=1)
            script = Path(tmp) / f"kb-{i}.py"
            script.write_text(SCRIPT.format(tree=str(tree)))
            runs[str(tree)] = [sys.executable, str(script), "diagnose", str(one)]
        for argv in runs.values():  # warm: caches, page cache
            for _ in range(3):
                cpu_ms(argv)
        results: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(ns.rounds):
            for name, argv in runs.items():
                results[name].append(cpu_ms(argv))
    base = statistics.median(results["python -c pass"])
    print(f"{ns.rounds} rounds, alternating; CPU = user+system of the child (wait4); load average "
          f"{os.getloadavg()[0]:.2f}; {sys.executable} {sys.version.split()[0]}")
    for name, values in results.items():
        cpu = statistics.median(values)
        print(f"  {name:50s} CPU median {cpu:6.2f} ms (q1 {sorted(values)[len(values) // 4]:6.2f})  "
              f"{cpu / base:4.2f}x python -c pass, {cpu - base:+6.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
