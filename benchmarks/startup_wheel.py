"""`kb diagnose`'s start-up as users get it: each tree built into a wheel, installed into a fresh virtual environment,
and its installed `kb` command run there, against that environment's `python -c pass`.

For this tree and ``--old-tree DIR``: ``pip wheel --no-deps`` of the tree, ``python -m venv`` (``--python``, default
this Python) and ``pip install --no-deps`` of the wheel (pip byte-compiles it, as a user's install does; the command is
bin/kb with its first line pointed at the environment's Python). Then, alternating round after round, the child's CPU
time (user + system, wait4) and wall time of ``python -c pass`` in each environment and of ``kb diagnose ONE-LINE-FILE``,
each tree with its own cache folder, warmed first. ``--regex-cache FILE`` seeds both cache folders with a regex cache
file (kb/knowledge/precompiled.py; copied under the name the installed kb looks for): a machine that has diagnosed
many inputs holds ~1,000-4,000 patterns, a fresh folder only the few the one-line run needs. Medians, the quartiles
and the least.

    python benchmarks/startup_wheel.py --old-tree DIR [--rounds 40] [--python PY] [--regex-cache FILE] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REGEX_FILE_NAME = "from kb.knowledge.precompiled import KEY, _hash; print(f'regex-{_hash(KEY):08x}.bin')"
ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


def install(tree: Path, python: str, where: Path, build_isolation: bool) -> Path:
    """A fresh environment in ``where`` with ``tree``'s wheel installed; its Python."""
    wheels = where / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)  # (--keep: a wheel built before would make two)
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(tree)]
    subprocess.run(build + ([] if build_isolation else ["--no-build-isolation"]), check=True, cwd=where)
    (wheel,) = wheels.glob("kb_finetune-*.whl")
    subprocess.run([python, "-m", "venv", str(where / "venv")], check=True)
    env_python = where / "venv" / "bin" / "python"
    subprocess.run([str(env_python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--force-reinstall",
                    str(wheel)], check=True, cwd=where)
    return env_python


def measure(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """The child's wall and CPU time in ms (its output to /dev/null)."""
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                                           (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{argv} failed")
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-tree", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--python", default=sys.executable, help="the Python the environments are made from")
    parser.add_argument("--regex-cache", type=Path, help="a regex cache file to seed both cache folders with")
    parser.add_argument("--no-build-isolation", action="store_true", help="pip wheel without fetching hatchling")
    parser.add_argument("--keep", type=Path, help="build and install here (kept) instead of a temporary folder")
    ns = parser.parse_args()
    trees = {"old": ns.old_tree.resolve(), "new": REPO}
    tmp = ns.keep.resolve() if ns.keep else Path(tempfile.mkdtemp(prefix="kb-wheel-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        one = tmp / "one-line.txt"
        one.write_text(ONE_LINE)
        base_env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("KB_", "PYTHON", "VIRTUAL_ENV"))}  # (the environment's own Python decides)
        runs: dict[str, tuple[list[str], dict[str, str]]] = {}
        for name, tree in trees.items():
            where = tmp / name
            where.mkdir(parents=True, exist_ok=True)
            python = install(tree, ns.python, where, not ns.no_build_isolation)
            cache = where / "cache"
            shutil.rmtree(cache, ignore_errors=True)
            cache.mkdir(mode=0o700)
            if ns.regex_cache:  # under the name the installed kb looks for (its Python build's key)
                file_name = subprocess.run([str(python), "-c", REGEX_FILE_NAME], check=True, capture_output=True,
                                           text=True, cwd=tmp).stdout.strip()
                shutil.copy(ns.regex_cache, cache / file_name)
            env = {**base_env, "KB_CACHE_DIR": str(cache)}
            runs[f"{name}: python -c pass"] = ([str(python), "-c", "pass"], env)
            runs[f"{name}: kb diagnose (the installed bin/kb)"] = ([str(python), str(python.parent / "kb"), "diagnose",
                                                                    str(one)], env)
        for argv, env in runs.values():  # warm: the index, the regex cache, the page cache
            for _ in range(3):
                measure(argv, env, str(tmp))
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        order = list(runs)
        for r in range(ns.rounds):
            for name in order if r % 2 == 0 else order[::-1]:
                results[name].append(measure(*runs[name], str(tmp)))
    finally:
        if not ns.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{ns.rounds} rounds, alternating; CPU = user+system of the child (wait4); load average "
          f"{os.getloadavg()[0]:.2f}; {ns.python}; regex cache seed: {ns.regex_cache or 'none (a fresh folder)'}")
    for name, values in results.items():
        cpu = sorted(c for _, c in values)
        q1, _, q3 = statistics.quantiles(cpu, n=4)
        base = statistics.median(c for _, c in results[f"{name.split(':')[0]}: python -c pass"])
        print(f"  {name:40s} CPU median {statistics.median(cpu):6.2f} ms (quartiles {q1:5.2f}-{q3:5.2f}, least "
              f"{cpu[0]:5.2f})  wall median {statistics.median(w for w, _ in values):6.2f} ms  "
              f"{statistics.median(cpu) / base:4.2f}x its python -c pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
