"""`kb diagnose` start-up of several trees, round after round, against `python -c pass`: the child's CPU time.

Each tree is started as uv's console script does it (``from kb.cli import script``, no ``re``, no runpy), on a
one-line input, byte-compiled first and with its cache warmed; ``python -c pass`` runs in the same rounds. For
a change that is not in any commit yet (say one import line), copy the tree, edit the copy, and name both:

    python benchmarks/startup_trees.py /work/main . /tmp/edited-copy [--rounds 60] [--seed N]

The order within a round is not fixed: a run right after ``python -c pass`` was measured 0.2-0.5 ms cheaper
(whatever the previous child leaves warm), which favoured the first tree. Each round takes one row of a
Williams design (a Latin square in which every run follows every other run equally often), with the runs
relabelled and the rows shuffled by a seeded RNG for each block; the seed is printed (``--seed`` repeats an
order). Over whole blocks (n rounds for n runs, 2n when n is odd) every run holds every position and follows
every other run equally often; the output says how often each ran right after ``python -c pass``.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
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


def williams_rows(n: int) -> list[list[int]]:
    """Orders of ``n`` runs in which each run holds each position, and follows each other run, equally often:
    the rows of a Williams design (n rows for even n, 2n for odd n)."""
    first, low, high = [0], 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(x + shift) % n for x in first] for shift in range(n)]
    return rows + [row[::-1] for row in rows] if n % 2 else rows


def schedule(n: int, rounds: int, rng: random.Random) -> list[list[int]]:
    """One order of the ``n`` runs per round: blocks of Williams rows, relabelled and shuffled by ``rng``."""
    orders: list[list[int]] = []
    while len(orders) < rounds:
        labels = list(range(n))
        rng.shuffle(labels)
        block = [[labels[x] for x in row] for row in williams_rows(n)]
        rng.shuffle(block)
        orders += block
    return orders[:rounds]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--seed", type=int, default=None, help="the order's seed (default: a random one, printed)")
    ns = parser.parse_args()
    seed = ns.seed if ns.seed is not None else random.SystemRandom().randrange(2**32)
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
        names = list(runs)
        orders = schedule(len(names), ns.rounds, random.Random(seed))
        results: dict[str, list[float]] = {name: [] for name in runs}
        after_pass = dict.fromkeys(names, 0)  # how often each ran right after `python -c pass`, within a round
        for order in orders:
            for position, index in enumerate(order):
                results[names[index]].append(cpu_ms(runs[names[index]]))
                if position and names[order[position - 1]] == "python -c pass":
                    after_pass[names[index]] += 1
    block = len(williams_rows(len(names)))
    base = statistics.median(results["python -c pass"])
    print(f"{ns.rounds} rounds, alternating in a seeded order (seed {seed}; Williams design, balanced every "
          f"{block} rounds); CPU = user+system of the child (wait4); load average "
          f"{os.getloadavg()[0]:.2f}; {sys.executable} {sys.version.split()[0]}")
    print("  right after `python -c pass`: " + ", ".join(f"{name} {count}x" for name, count in after_pass.items()
                                                          if name != "python -c pass"))
    for name, values in results.items():
        cpu = statistics.median(values)
        print(f"  {name:50s} CPU median {cpu:6.2f} ms (q1 {sorted(values)[len(values) // 4]:6.2f})  "
              f"{cpu / base:4.2f}x python -c pass, {cpu - base:+6.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
