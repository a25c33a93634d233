"""Mutation check of the judge: make each judging function always pass, and see tests/test_judge.py fail.

For every ``judge_*`` function of kb/reproduce/runner.py, the drift verifier's ``judge``
(kb/apidrift/verify.py) and the checks they are built from (exception type, raising frame,
measures, warnings, pinned versions, a measure's bounds), this writes a copy of the working tree
whose function body is replaced by its "all is well" value (``return True, "reproduced"`` for a
verdict, ``return True`` for a check, ``return []`` for a list of problems), runs
``pytest tests/test_judge.py -q`` against that copy, and prints function -> killed (some test
failed) or survived (every test passed: no negative test notices a judge that accepts anything).
The unmutated copy must pass first, or the table means nothing.

    python benchmarks/judge_mutation.py            # exit 1 if a mutant survives or the baseline fails

The result of the last run is kept in benchmarks/results/judge-mutation.txt.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/test_judge.py"
# (file, qualified function name); every judge_* of runner.py is added by scanning the file.
EXTRA_TARGETS = (
    ("kb/reproduce/runner.py", "type_accepted"),
    ("kb/reproduce/runner.py", "_frame_matches"),
    ("kb/reproduce/runner.py", "_check_measures"),
    ("kb/reproduce/runner.py", "_check_warnings"),
    ("kb/reproduce/pinned.py", "compare"),
    ("kb/knowledge/model.py", "Measure.check"),
    ("kb/apidrift/verify.py", "judge"),
)
SKIP_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", "site", "artifacts", "node_modules", ".whl", ".whl-pinned"}


def functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """Top-level functions and methods of top-level classes, by qualified name."""
    found: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            found.update({f"{node.name}.{n.name}": n for n in node.body if isinstance(n, ast.FunctionDef)})
    return found


def targets() -> list[tuple[str, str]]:
    runner = ROOT / "kb/reproduce/runner.py"
    judges = [("kb/reproduce/runner.py", name) for name in functions(ast.parse(runner.read_text())) if name.startswith("judge_")]
    return judges + list(EXTRA_TARGETS)


def always_pass(function: ast.FunctionDef) -> str:
    """The return value that says "all is well", from the function's return annotation."""
    returns = ast.unparse(function.returns) if function.returns else ""
    if returns == "bool":
        return "True"
    if returns.startswith("list["):
        return "[]"
    m = re.fullmatch(r"tuple\[(.*)\]", returns)
    if m:
        width = len(m[1].split(","))
        return repr((True, "reproduced", "reproduced")[:width])
    raise SystemExit(f"{function.name}: no always-pass value for a function returning {returns!r}")


def mutate(source: str, qualified: str) -> tuple[str, str]:
    """``source`` with ``qualified``'s body replaced by ``return <always pass>``; and that statement."""
    tree = ast.parse(source)
    function = functions(tree).get(qualified)
    if function is None:
        raise SystemExit(f"no function {qualified} to mutate")
    lines = source.splitlines(keepends=True)
    first, last = function.body[0].lineno, function.body[-1].end_lineno or function.body[-1].lineno
    indent = re.match(r"\s*", lines[first - 1])[0]  # type: ignore[index]
    statement = f"return {always_pass(function)}"
    mutated = "".join(lines[: first - 1]) + f"{indent}{statement}\n" + "".join(lines[last:])
    ast.parse(mutated)
    return mutated, statement


def copy_tree(dest: Path) -> None:
    shutil.copytree(ROOT, dest, ignore=lambda _d, names: [n for n in names if n in SKIP_DIRS])


def run_tests(repo: Path) -> tuple[int, str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update(PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1")
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", TEST, "-q", "-p", "no:cacheprovider"],
        cwd=repo, env=env, capture_output=True, text=True, check=False,
    )
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    return proc.returncode, lines[-1] if lines else "", time.monotonic() - started


def main() -> int:
    rows = []
    with tempfile.TemporaryDirectory(prefix="kb-judge-mutation-") as tmp:
        repo = Path(tmp) / "repo"
        copy_tree(repo)
        which = subprocess.run(
            [sys.executable, "-c", "import kb.reproduce.runner as r; print(r.__file__)"],
            cwd=repo, env={**os.environ, "PYTHONPATH": str(repo)}, capture_output=True, text=True, check=True,
        ).stdout.strip()
        if not which.startswith(str(repo)):
            print(f"the copy's kb is not the one imported ({which}): the mutants would not be tested")
            return 2
        rc, summary, seconds = run_tests(repo)
        print(f"baseline (no mutation): {'passes' if rc == 0 else 'FAILS'} — {summary} ({seconds:.1f} s)")
        if rc != 0:
            return 2
        for path, name in targets():
            original = (repo / path).read_text()
            mutated, statement = mutate(original, name)
            (repo / path).write_text(mutated)
            try:
                rc, summary, seconds = run_tests(repo)
            finally:
                (repo / path).write_text(original)
            rows.append((f"{path}:{name}", statement, "killed" if rc != 0 else "SURVIVED", summary))
            print(f"  {path}:{name}: {rows[-1][2]} ({seconds:.1f} s)", file=sys.stderr, flush=True)
    width = max(len(r[0]) for r in rows)
    swidth = max(len(r[1]) for r in rows)
    print(f"\n{'function':{width}}  {'mutated body':{swidth}}  result    pytest {TEST}")
    for function, statement, result, summary in rows:
        print(f"{function:{width}}  {statement:{swidth}}  {result:8}  {summary}")
    survived = [r[0] for r in rows if r[2] != "killed"]
    print(f"\n{len(rows)} mutants, {len(rows) - len(survived)} killed, {len(survived)} survived")
    return 1 if survived else 0


if __name__ == "__main__":
    raise SystemExit(main())
