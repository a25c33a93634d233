"""`kb diagnose`'s start-up and a 20 MB log, this tree against another commit, run alternately.

Checks the other commit out into a temporary git worktree, byte-compiles both trees' kb/ (as an
installed package is), and times ``python -m kb diagnose FILE`` from each checkout in turn, round
after round, so that a busy machine slows both alike. Each checkout answers from its own knowledge
(its cases/ and families/). Prints the median and range per tree.

    python benchmarks/startup_vs_commit.py [COMMIT] [--rounds 15] [--log-mb 20]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ERROR = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


def timed(tree: Path, argv: list[str], cache: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update({"PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1", "KB_CACHE_DIR": str(cache)})
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kb", *argv], cwd=tree, env=env, capture_output=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{tree}: kb {' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", nargs="?", default="HEAD~1")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--log-mb", type=int, default=20)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-startup-") as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(old), ns.commit], check=True)
        try:
            trees = {f"{ns.commit}": old, "this tree": REPO}
            for tree in trees.values():
                compileall.compile_dir(str(tree / "kb"), quiet=1)
            small = Path(tmp) / "one-line.txt"
            small.write_text(ERROR)
            log = Path(tmp) / "train.log"
            line = "[rank0]: INFO step 100 loss 1.2345 lr 2e-5 grad_norm 0.98 tokens/s 4123.4 epoch 0.12\n"
            with open(log, "w") as handle:
                handle.write(line * (ns.log_mb * 1024 * 1024 // len(line)))
                handle.write("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n" + ERROR)
            results: dict[str, dict[str, list[float]]] = {name: {"start-up": [], f"{ns.log_mb} MB log": []} for name in trees}
            for name, tree in trees.items():  # warm each tree's index cache
                timed(tree, ["diagnose", str(small)], Path(tmp) / f"cache-{tree.name}")
            for _ in range(ns.rounds):
                for name, tree in trees.items():
                    cache = Path(tmp) / f"cache-{tree.name}"
                    results[name]["start-up"].append(timed(tree, ["diagnose", str(small)], cache))
                    results[name][f"{ns.log_mb} MB log"].append(timed(tree, ["diagnose", str(log)], cache))
            for name, series in results.items():
                for what, times in series.items():
                    ms = sorted(t * 1000 for t in times)
                    print(f"{name:<12} {what:<10} median {statistics.median(ms):7.1f} ms  (min {ms[0]:.1f}, max {ms[-1]:.1f}, "
                          f"{len(ms)} runs)")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
