"""A user's install answers as the checkout does: build the wheel, check what it carries, install it (and,
separately, a plain non-editable ``pip install .``) into fresh virtual environments, and run kb there from a
directory outside the checkout.

    python scripts/check_install.py [--keep DIR]

Checks, for the wheel and for ``pip install .`` each:
- the wheel carries every case folder (case.md, programs, evidence), every family, the tables, the
  examples and incidents, and no tests or caches;
- ``kb list`` shows every case of the checkout; ``kb show cuda-oom`` works; a T4 OOM line answers the
  cuda-oom family; ``kb plan --model qwen2.5-7b --quant nf4`` answers;
- ``kb diagnose --format json`` gives the same document as the checkout's kb for every example and a
  sample of the dev set;
- with the knowledge gone, a command says so on one line and exits 2.
CI runs it (.ci/run). Exit 0 when every check holds; 1 with each failure listed.

The two installs are independent, so they run side by side (threads; the work is in subprocesses), and the
checkout's own answers, the same for both, are computed once, beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
T4_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
          "14.74 GiB of which 1.21 GiB is free. Of the allocated memory 12.90 GiB is allocated by PyTorch\n")
DEVSET_SAMPLE = 25  # dev-set inputs compared, spread over the manifest


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=600)


def build_wheel(out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    proc = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)], cwd=out)
    if proc.returncode:
        sys.exit(f"pip wheel failed:\n{proc.stderr[-3000:]}")
    (wheel,) = out.glob("kb_finetune-*.whl")
    return wheel


def check_contents(wheel: Path) -> list[str]:
    names = set(zipfile.ZipFile(wheel).namelist())
    problems = []
    for folder in sorted(p for p in (REPO / "cases").iterdir() if (p / "case.md").is_file()):
        for path in folder.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                inside = f"kb/_knowledge/cases/{path.relative_to(REPO / 'cases').as_posix()}"
                if inside not in names:
                    problems.append(f"wheel lacks {inside}")
    for kind in ("families", "tables", "examples", "incidents"):
        for path in (REPO / kind).rglob("*"):
            if path.is_file() and f"kb/_knowledge/{kind}/{path.relative_to(REPO / kind).as_posix()}" not in names:
                problems.append(f"wheel lacks kb/_knowledge/{kind}/{path.relative_to(REPO / kind).as_posix()}")
    stray = sorted(n for n in names if n.startswith(("tests/", "benchmarks/")) or "__pycache__" in n or n.endswith(".pyc"))
    problems += [f"wheel carries {n}" for n in stray[:10]]
    return problems


def install(venv: Path, target: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    proc = run([str(venv / "bin" / "pip"), "install", "-q", target], cwd=venv)
    if proc.returncode:
        sys.exit(f"pip install {target} failed:\n{proc.stderr[-3000:]}")
    return venv / "bin" / "kb"


def diagnose_json(kb: list[str], path: Path, cwd: Path, env: dict[str, str]) -> str:
    proc = run([*kb, "diagnose", str(path), "--format", "json"], cwd=cwd, env=env)
    return f"exit {proc.returncode}\n{proc.stdout}"


def sample_inputs() -> list[Path]:
    inputs = sorted((REPO / "examples").glob("*.txt"))
    dev = sorted((REPO / "tests" / "fixtures" / "diagnose" / "dev").glob("*.txt"))
    step = max(1, len(dev) // DEVSET_SAMPLE)
    return inputs + dev[::step][:DEVSET_SAMPLE]


def user_env(outside: Path, label: str) -> dict[str, str]:
    """The environment kb runs in: this one without KB_* variables, a cache of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["KB_CACHE_DIR"] = str(outside / f"cache-{label}")
    return env


def checkout_answers(outside: Path) -> dict[Path, str]:
    """The checkout's `kb diagnose --format json` of every ``sample_inputs()`` path (its exit status and output),
    which each install's answers are compared with."""
    env = {**user_env(outside, "checkout"), "PYTHONPATH": str(REPO)}
    return {path: diagnose_json([sys.executable, "-m", "kb"], path, outside, env) for path in sample_inputs()}


def check_install(label: str, kb_bin: Path, outside: Path, theirs: Future[dict[Path, str]]) -> tuple[list[str], str]:
    """(the problems found, the summary line) of the install whose ``kb`` is ``kb_bin``; ``theirs``: the
    checkout's answers (``checkout_answers``)."""
    problems: list[str] = []
    env = user_env(outside, label)
    kb = [str(kb_bin)]

    proc = run([*kb, "list", "--format", "json"], cwd=outside, env=env)
    cases = json.loads(proc.stdout)["cases"] if proc.returncode == 0 else []
    want = sorted(p.name.split("-", 1)[0] for p in (REPO / "cases").iterdir() if (p / "case.md").is_file())
    if sorted(c["id"] for c in cases) != want:
        problems.append(f"{label}: kb list shows {len(cases)} cases, the checkout has {len(want)} ({proc.stderr.strip()[:200]})")

    proc = run([*kb, "diagnose", "-", "--format", "json"], cwd=outside, env=env, stdin=T4_OOM)
    first = json.loads(proc.stdout)["matches"][0] if proc.returncode == 0 else {}
    if first.get("family") != "cuda-oom":
        problems.append(f"{label}: a T4 OOM line answers {first.get('family')!r}, not cuda-oom (exit {proc.returncode})")

    proc = run([*kb, "show", "cuda-oom"], cwd=outside, env=env)
    if proc.returncode or "family cuda-oom" not in proc.stdout:
        problems.append(f"{label}: kb show cuda-oom exits {proc.returncode}: {proc.stderr.strip()[:200]}")

    proc = run([*kb, "plan", "--model", "qwen2.5-7b", "--quant", "nf4"], cwd=outside, env=env)
    if proc.returncode or "peak" not in proc.stdout:
        problems.append(f"{label}: kb plan exits {proc.returncode}: {proc.stderr.strip()[:200]}")

    compared = 0
    for path in sample_inputs():
        mine = diagnose_json(kb, path, outside, env)
        compared += 1
        if mine != theirs.result()[path]:
            problems.append(f"{label}: kb diagnose {path.relative_to(REPO)} differs from the checkout's answer")

    empty = outside / "no-knowledge"
    empty.mkdir(exist_ok=True)
    proc = run([*kb, "list"], cwd=outside, env={**env, "KB_KNOWLEDGE_DIR": str(empty)})
    if proc.returncode != 2 or len(proc.stderr.strip().splitlines()) != 1:
        problems.append(f"{label}: without its knowledge kb list exits {proc.returncode} with {proc.stderr!r}")
    return problems, (f"{label}: {len(cases)} cases listed, {compared} diagnoses compared with the checkout's, "
                      f"{len(problems)} problem(s)")


def check_wheel(work: Path, outside: Path, theirs: Future[dict[Path, str]]) -> tuple[list[str], list[str]]:
    """Build the wheel, check what it carries, install it and check the install: (problems, summary lines)."""
    wheel = build_wheel(work / "dist")
    problems = check_contents(wheel)
    lines = [f"wheel: {wheel.name}, {wheel.stat().st_size / 1e6:.2f} MB, {len(problems)} content problem(s)"]
    found, line = check_install("wheel", install(work / "venv-wheel", str(wheel)), outside, theirs)
    return problems + found, [*lines, line]


def check_pip_install(work: Path, outside: Path, theirs: Future[dict[Path, str]]) -> tuple[list[str], list[str]]:
    """A plain ``pip install .`` of the checkout, checked: (problems, summary lines)."""
    found, line = check_install("pip install .", install(work / "venv-checkout", str(REPO)), outside, theirs)
    return found, [line]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    ns = parser.parse_args(argv)
    work = ns.keep or Path(tempfile.mkdtemp(prefix="kb-install-"))
    work.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    try:
        outside = work / "elsewhere"
        outside.mkdir(exist_ok=True)
        with ThreadPoolExecutor(max_workers=3) as pool:
            theirs = pool.submit(checkout_answers, outside)
            installs = [pool.submit(check, work, outside, theirs) for check in (check_wheel, check_pip_install)]
            for done in installs:  # in this order, whichever finishes first
                found, lines = done.result()
                problems += found
                for line in lines:
                    print(line)
    finally:
        if ns.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print(f"FAIL {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
