"""The input path (issue 26): a 200 MB noisy log against grep, and start-up against `python -c pass`,
this tree against another commit, run alternately.

The log is benchmarks/diagnose_speed.py's generator (progress bars with carriage returns, INFO lines, a
UserWarning every 50 steps, a ValueError every 200, the real traceback at the end). For each tree, round
after round so that a busy machine slows both alike:

- ``kb diagnose LOG --format json``: wall time, user+system CPU time and peak RSS of the child (wait4);
- ``grep -E`` over the same log, once with the issue's words (Error|Traceback|CUDA) and once with every
  trigger word this tree's kb searches a whole log for (kb/diagnose/parser.py STRUCTURAL_TOKENS and
  kb/diagnose/environment.py's tokens), output to a pipe (grep stops at the first line when it writes
  to /dev/null);
- start-up: ``kb diagnose`` on a one-line input against ``python -c pass``.

The other tree comes from ``git worktree add`` of COMMIT, or from ``--old-tree DIR`` (a copy made with
``git archive``, for a machine without the repository's history). Both trees are byte-compiled, as an
installed package is, and each answers from its own knowledge. The two trees' JSON answers for the log
are compared.

    python benchmarks/input_path.py [COMMIT] [--old-tree DIR] [--rounds 5] [--size-mb 200] [--startup-runs 20]

The ratios to grep are printed for wall time and for CPU time (user+system): on a shared machine, the CPU ones.
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
sys.path.insert(0, str(REPO / "benchmarks"))
from diagnose_speed import generate_log  # noqa: E402

GREP3 = "grep -E 'Error|Traceback|CUDA'"
ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


def measured(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
             stdin: Path | None = None) -> tuple[float, float, int, bytes]:
    """Run ``argv``; (wall s, CPU s of the child, peak RSS bytes, stdout)."""
    start = time.perf_counter()
    with open(stdin or os.devnull, "rb") as source:
        proc = subprocess.Popen(argv, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                env=env, cwd=cwd)
        out = proc.stdout.read() if proc.stdout else b""
        _, _status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out


def tree_env(tree: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update({"PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1", "KB_CACHE_DIR": str(cache)})
    return env


def trigger_words(tree: Path, env: dict[str, str]) -> list[str]:
    """The words ``tree``'s kb searches every line of a log for (its own modules, not this tree's)."""
    code = ("from kb.diagnose.parser import STRUCTURAL_TOKENS as s\nfrom kb.diagnose.environment import "
            "_ENV_TOKENS as e\nprint('\\n'.join(dict.fromkeys(s + e)))")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def median_ms(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return f"median {statistics.median(ms):8.1f} ms (min {ms[0]:.1f}, max {ms[-1]:.1f}, {len(ms)} runs)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", nargs="?", default=None, help="the commit to check out (default 7f163a0), or with "
                        "--old-tree the label its rows get")
    parser.add_argument("--old-tree", type=Path, help="the other tree as a folder (instead of checking COMMIT out)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--startup-runs", type=int, default=20)
    ns = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="kb-input-path-") as tmp:
        old = ns.old_tree
        if old is None:
            ns.commit = ns.commit or "7f163a0"
            old = Path(tmp) / "old"
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(old), ns.commit], check=True)
        label = ns.commit if ns.old_tree is None else f"{ns.commit} ({ns.old_tree})" if ns.commit else str(ns.old_tree)
        try:
            trees = {label: old, "this tree": REPO}
            envs = {name: tree_env(tree, Path(tmp) / f"cache-{i}") for i, (name, tree) in enumerate(trees.items())}
            for tree in trees.values():
                compileall.compile_dir(str(tree / "kb"), quiet=1)
            log = Path(tmp) / "noisy.log"
            size = generate_log(log, ns.size_mb)
            small = Path(tmp) / "one-line.txt"
            small.write_text(ONE_LINE)
            words = {name: trigger_words(tree, envs[name]) for name, tree in trees.items()}
            answers = {}
            for name, tree in trees.items():  # warm the index cache and the page cache; keep each answer
                measured([sys.executable, "-m", "kb", "diagnose", str(small)], envs[name], tree)
                answers[name] = measured([sys.executable, "-m", "kb", "diagnose", str(log), "--format", "json"],
                                         envs[name], tree)[3]
            # the same log through a pipe (read a block at a time, not mapped): the same answer
            piped = subprocess.run(f"cat {log} | {sys.executable} -m kb diagnose - --format json", shell=True,
                                   env=envs["this tree"], cwd=REPO, capture_output=True, check=False).stdout
            wall: dict[str, list[float]] = {}
            cpu: dict[str, list[float]] = {}
            rss: dict[str, list[int]] = {}
            for _ in range(ns.rounds):
                for name, tree in trees.items():
                    key = f"{name}: kb diagnose LOG --format json"
                    w, c, r, _out = measured([sys.executable, "-m", "kb", "diagnose", str(log), "--format", "json"],
                                             envs[name], tree)
                    wall.setdefault(key, []).append(w)
                    cpu.setdefault(key, []).append(c)
                    rss.setdefault(key, []).append(r)
                greps = {GREP3: ["grep", "-E", "Error|Traceback|CUDA", str(log)]}
                for name, w in words.items():
                    pattern = "|".join(x.replace("(", "\\(").replace(")", "\\)").replace(".", "\\.") for x in w)
                    greps[f"grep -E ({name}'s {len(w)} trigger words)"] = ["grep", "-E", pattern, str(log)]
                for key, argv in greps.items():
                    w, c, r, _out = measured(argv, {**os.environ, "LC_ALL": "C"})
                    wall.setdefault(key, []).append(w)
                    cpu.setdefault(key, []).append(c)
                    rss.setdefault(key, []).append(r)
            start: dict[str, list[float]] = {"python -c pass": []}
            start_cpu: dict[str, list[float]] = {"python -c pass": []}
            for _ in range(ns.startup_runs):
                w, c, _r, _out = measured([sys.executable, "-c", "pass"])
                start["python -c pass"].append(w)
                start_cpu["python -c pass"].append(c)
                for name, tree in trees.items():
                    w, c, _r, _out = measured([sys.executable, "-m", "kb", "diagnose", str(small)], envs[name], tree)
                    start.setdefault(f"{name}: kb diagnose one-line", []).append(w)
                    start_cpu.setdefault(f"{name}: kb diagnose one-line", []).append(c)
            print(f"{size / 1e6:.0f} MB noisy log (benchmarks/diagnose_speed.py's generator), {ns.rounds} rounds, "
                  f"alternating; {os.cpu_count()} CPUs, load average {load_at_start:.2f} at the start, "
                  f"{os.getloadavg()[0]:.2f} at the end")
            for key in wall:
                print(f"  {key:<58} wall {median_ms(wall[key])}; CPU median {statistics.median(cpu[key]):.2f} s; "
                      f"peak RSS {max(rss[key]) / 2**20:.0f} MiB")
            grep_words = f"grep -E (this tree's {len(words['this tree'])} trigger words)"
            for name in trees:
                kb_wall = statistics.median(wall[f"{name}: kb diagnose LOG --format json"])
                kb_cpu = statistics.median(cpu[f"{name}: kb diagnose LOG --format json"])
                print(f"  {name}: wall kb / {GREP3} = {kb_wall / statistics.median(wall[GREP3]):.1f}x; "
                      f"kb / grep -E (this tree's trigger words) = {kb_wall / statistics.median(wall[grep_words]):.1f}x")
                print(f"  {name}: CPU  kb / {GREP3} = {kb_cpu / statistics.median(cpu[GREP3]):.1f}x; "
                      f"kb / grep -E (this tree's trigger words) = {kb_cpu / statistics.median(cpu[grep_words]):.1f}x")
            names = list(trees)
            print(f"  the two trees' JSON answers for the log are {'identical' if answers[names[0]] == answers[names[1]] else 'DIFFERENT'}")
            print(f"  this tree's JSON answer for the log through a pipe is "
                  f"{'the same as for the file' if piped == answers['this tree'] else 'DIFFERENT from the file'}")
            print(f"start-up, {ns.startup_runs} runs each, alternating:")
            base = statistics.median(start["python -c pass"])
            base_cpu = statistics.median(start_cpu["python -c pass"])
            for key, values in start.items():
                print(f"  {key:<40} wall {median_ms(values)}  ({statistics.median(values) / base:.2f}x python -c pass)")
                print(f"  {'':<40} CPU  {median_ms(start_cpu[key])}  ({statistics.median(start_cpu[key]) / base_cpu:.2f}x)")
            print("trigger words (this tree): " + ", ".join(repr(w) for w in words["this tree"]))
        finally:
            if ns.old_tree is None:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
