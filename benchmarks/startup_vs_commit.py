"""`kb diagnose`'s start-up and a 20 MB log, this tree against another commit, run alternately.

Checks the other commit out into a temporary git worktree, byte-compiles both trees' kb/ (as an
installed package is), and times ``python -m kb diagnose FILE`` from each checkout in turn, round
after round, so that a busy machine slows both alike, with ``python -c pass`` in the same rounds. Each
checkout answers from its own knowledge (its cases/ and families/). Prints the median and range per
tree of the wall time and of the child's CPU time (user + system, from wait4: what a shared, busy
machine disturbs least).

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


def timed(tree: Path | None, argv: list[str], cache: Path) -> tuple[float, float]:
    """(wall s, CPU s) of ``python -m kb ARGV`` in ``tree``; of ``python -c pass`` when tree is None."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update({"PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1", "KB_CACHE_DIR": str(cache)})
    command = [sys.executable, "-m", "kb", *argv] if tree is not None else [sys.executable, "-c", "pass"]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - start
        if tree is not None and os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"{tree}: kb {' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}: {err.read().decode()[-500:]}")
    return took, usage.ru_utime + usage.ru_stime


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
            results: dict[str, dict[str, list[tuple[float, float]]]] = {
                "python -c pass": {"start-up": []}, **{name: {"start-up": [], f"{ns.log_mb} MB log": []} for name in trees}}
            for name, tree in trees.items():  # warm each tree's index and regex caches
                timed(tree, ["diagnose", str(small)], Path(tmp) / f"cache-{tree.name}")
            for _ in range(ns.rounds):
                results["python -c pass"]["start-up"].append(timed(None, [], Path(tmp)))
                for name, tree in trees.items():
                    cache = Path(tmp) / f"cache-{tree.name}"
                    results[name]["start-up"].append(timed(tree, ["diagnose", str(small)], cache))
                    results[name][f"{ns.log_mb} MB log"].append(timed(tree, ["diagnose", str(log)], cache))
            base_cpu = statistics.median(c for _, c in results["python -c pass"]["start-up"])
            for name, series in results.items():
                for what, times in series.items():
                    ms = sorted(t * 1000 for t, _ in times)
                    cpu = sorted(c * 1000 for _, c in times)
                    ratio = f"  ({statistics.median(cpu) / (base_cpu * 1000):.2f}x python -c pass's CPU)" if what == "start-up" else ""
                    print(f"{name:<14} {what:<10} wall median {statistics.median(ms):7.1f} ms (min {ms[0]:.1f}, max {ms[-1]:.1f}); "
                          f"CPU median {statistics.median(cpu):7.1f} ms (min {cpu[0]:.1f}, max {cpu[-1]:.1f}), {len(ms)} runs{ratio}")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
