"""What the start-up benchmarks that set this tree against another share (startup_paths.py, startup_deferred.py):
their two options, the two trees, each tree's environment for a child (its own kb on PYTHONPATH, its own cache
folder, no KB_ setting of the caller's) and the alternating rounds, the order rotating each round."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

REPO = Path(__file__).resolve().parent.parent


def tree_options(description: str, rounds: int, **more: dict) -> tuple[argparse.Namespace, dict[str, Path]]:
    """``--old-tree DIR`` (required) and ``--rounds N`` (default ``rounds``), plus ``more`` (option -> add_argument's
    keywords); the parsed options and the trees {"old": DIR, "new": this checkout}."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--old-tree", type=Path, required=True, help="another checkout (e.g. `git archive main`)")
    parser.add_argument("--rounds", type=int, default=rounds)
    for option, keywords in more.items():
        parser.add_argument(option, **keywords)
    ns = parser.parse_args()
    return ns, {"old": ns.old_tree.resolve(), "new": REPO}


def tree_env(tree: Path, cache: Path, bytecode: bool = False) -> dict[str, str]:
    """The environment of a child that runs ``tree``'s kb answering from the cache folder ``cache``; the caller's KB_
    settings dropped; PYTHONDONTWRITEBYTECODE set unless ``bytecode`` (then dropped)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KB_") and not (bytecode and k == "PYTHONDONTWRITEBYTECODE")}
    env.update({"PYTHONPATH": str(tree), "KB_CACHE_DIR": str(cache)})
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def alternate(rounds: int, names: list[str], run: Callable[[str], object]) -> dict[str, list[object]]:
    """``run(name)`` for every name, ``rounds`` times, the order rotating by one each round; the results by name."""
    results: dict[str, list[object]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names) if names else 0
        for name in names[shift:] + names[:shift]:
            results[name].append(run(name))
    return results
