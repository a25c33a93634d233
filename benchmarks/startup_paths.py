"""`kb diagnose`'s start-up by the ways users start it, this tree against another, against `python -c pass`.

For each tree (this one, and ``--old-tree DIR``), alternating round after round, the child's CPU time
(user + system, wait4) and wall time of ``kb diagnose ONE-LINE-FILE`` started as:

- ``python -m kb diagnose`` (runpy: importlib.util, contextlib, functools... before kb);
- pip's console script (distlib's template: ``import re``, then ``from kb.cli import <func>``);
- uv's console script (the same without ``re``);
- the tree's bin/kb, where its pyproject.toml installs that file as the command (hatchling's shared-scripts: what
  ``pip install`` and ``uv pip install`` give users then, with its first line pointed at their Python);

the two console scripts calling what the tree's pyproject.toml [project.scripts] names, or ``kb.cli:script`` where
it names none. Both trees byte-compiled, each answering from its own knowledge and its own cache folder (warmed
first: the index, the regex cache and kb/cli/bundle.py's file where the tree has one). ``--input FILE``: that input
instead of the one-line dtype error (an error no signature answers reaches the learned fallback; a traceback);
``--stdin``: handed on standard input (``kb diagnose < FILE``) instead of named.

    python benchmarks/startup_paths.py --old-tree /work/main [--rounds 30] [--input FILE [--stdin]]
"""

from __future__ import annotations

import compileall
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from startup_support import alternate, tree_env, tree_options

ONE_LINE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"

PIP_SCRIPT = """# -*- coding: utf-8 -*-
import re
import sys
from {module} import {func}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({func}())
"""
UV_SCRIPT = """# -*- coding: utf-8 -*-
import sys
from {module} import {func}
if __name__ == "__main__":
    if sys.argv[0].endswith("-script.pyw"):
        sys.argv[0] = sys.argv[0][:-11]
    elif sys.argv[0].endswith(".exe"):
        sys.argv[0] = sys.argv[0][:-4]
    sys.exit({func}())
"""


def entry_point(tree: Path) -> tuple[str, str]:
    """[project.scripts]' kb entry point, else kb.cli:script (the function bin/kb calls)."""
    text = (tree / "pyproject.toml").read_text()
    m = re.search(r'^kb = "([\w.]+):(\w+)"', text, re.M)
    return (m.group(1), m.group(2)) if m else ("kb.cli", "script")


def shared_script(tree: Path) -> Path | None:
    """The file the tree's wheel installs as the kb command (shared-scripts), if it does."""
    m = re.search(r'^"([^"]+)" = "kb"', (tree / "pyproject.toml").read_text(), re.M)
    return tree / m.group(1) if m else None


def measure(argv: list[str], env: dict[str, str] | None, cwd: Path, stdin: str = os.devnull) -> tuple[float, float]:
    """The child's wall and CPU time, started in ``cwd`` with ``stdin`` on its standard input: ``python -m`` puts the
    current folder first on sys.path, so a child started in a checkout of kb imports that checkout's kb, whatever
    PYTHONPATH says."""
    os.chdir(cwd)  # (posix_spawn takes no folder; the benchmark's own paths are all absolute)
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env if env is not None else dict(os.environ),
                         file_actions=[(os.POSIX_SPAWN_OPEN, 0, stdin, os.O_RDONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{argv} failed")
    return wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def main() -> int:
    ns, trees = tree_options(__doc__.split("\n\n")[0], 30,
                             **{"--input": {"type": Path, "help": "the input (default: a one-line dtype error)"},
                                "--stdin": {"action": "store_true", "help": "hand it on standard input"}})
    with tempfile.TemporaryDirectory(prefix="kb-startup-") as tmp:
        one = Path(tmp) / "one-line.txt"
        one.write_text(ONE_LINE)
        source = ns.input.resolve() if ns.input else one
        named, stdin = ([], str(source)) if ns.stdin else ([str(source)], os.devnull)
        runs: dict[str, tuple[list[str], dict[str, str] | None, Path]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], None, Path(tmp)),
        }
        for name, tree in trees.items():
            compileall.compile_dir(str(tree / "kb"), quiet=1)
            env = tree_env(tree, Path(tmp) / f"cache-{name}")
            module, func = entry_point(tree)
            for kind, template in (("pip script", PIP_SCRIPT), ("uv script", UV_SCRIPT)):
                script = Path(tmp) / f"kb-{name}-{kind.split()[0]}"
                script.write_text(template.format(module=module, func=func))
                runs[f"{name}: {kind} ({module}:{func})"] = ([sys.executable, str(script), "diagnose", *named],
                                                              env, tree)
            runs[f"{name}: python -m kb"] = ([sys.executable, "-m", "kb", "diagnose", *named], env, tree)
            installed = shared_script(tree)
            if installed is not None:  # run as the installer leaves it: from a folder of its own (bin/)
                script = Path(tmp) / f"bin-{name}" / "kb"
                script.parent.mkdir()
                script.write_text(installed.read_text())
                runs[f"{name}: bin/kb (what pip installs)"] = ([sys.executable, str(script), "diagnose", *named],
                                                                env, tree)
        for argv, env, cwd in runs.values():  # warm: caches, page cache
            for _ in range(3):
                measure(argv, env, cwd, stdin)
        results = alternate(ns.rounds, list(runs), lambda name: measure(*runs[name], stdin))
    print(f"input: {'standard input < ' if ns.stdin else ''}{ns.input or 'the one-line dtype error'}")
    base = statistics.median(c for _, c in results["python -c pass"])
    load = os.getloadavg()[0]
    print(f"{ns.rounds} rounds, alternating; CPU = user+system of the child (wait4); load average {load:.2f}; "
          f"{sys.executable} {sys.version.split()[0]}")
    for name, values in results.items():
        cpu = statistics.median(c for _, c in values)
        wall = statistics.median(w for w, _ in values)
        print(f"  {name:58s} CPU median {cpu:6.1f} ms (min {min(c for _, c in values):5.1f})  "
              f"wall median {wall:6.1f} ms  {cpu / base:4.2f}x python -c pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
