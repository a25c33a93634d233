"""Save every answer `kb diagnose` gives, to check that a speed change changes none of them.

For every file of tests/fixtures/diagnose and examples/ (and a few generated inputs that exercise the
input path: a noisy log, its CR-only, CRLF and stdin forms, over-long lines, a non-UTF-8 line), runs
``python -m kb diagnose FILE --format json`` and ``--format text --width 80`` (and the stdin forms
through ``-``), and writes exit code, standard output and standard error of each to one file per input
under OUT. Two snapshots are then compared with ``--compare A B`` (byte for byte, naming what differs).

    python benchmarks/answers_snapshot.py OUT [--tree DIR]        # DIR: the checkout to run (default: this one)
    python benchmarks/answers_snapshot.py --compare OLD NEW
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
from diagnose_speed import generate_log  # noqa: E402


def generated_inputs(folder: Path) -> list[Path]:
    """Inputs that exercise the reader's paths (line ends, long lines, encodings, the prefilter)."""
    noisy = folder / "noisy-3mb.log"
    generate_log(noisy, 3)
    data = noisy.read_bytes()
    made = {
        "noisy-3mb.log": data,
        "noisy-crlf.log": data.replace(b"\n", b"\r\n"),
        "noisy-cr-only.log": data[:400_000].replace(b"\r", b" ").replace(b"\n", b"\r"),
        "long-lines.log": b"x" * 200_000 + b"\n" + b"y" * 70_000 + b" RuntimeError: CUDA out of memory\n"
        + data[-2000:],
        "one-long-line.log": b"z" * 300_000,
        "latin1.log": "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n"
        "ValueError: caf\u00e9 not found\n".encode("latin-1"),
        "bom.log": b"\xef\xbb\xbf" + data[-1500:],
        "error-at-block-edge.log": b"INFO ok\n" * (1024 * 1024 // 8 - 1) + b"RuntimeError: CUDA error: "
        b"device-side assert triggered\nnext line\n",
        "warning-then-error.log": b"a.py:1: UserWarning: careful\n" + b"  step 1/10\n" * 30
        + b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
    }
    paths = []
    for name, content in made.items():
        path = folder / name
        path.write_bytes(content)
        paths.append(path)
    return paths


def run_one(tree: Path, python: str, path: Path, stdin: bool) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["PYTHONPATH"] = str(tree)
    out = []
    for fmt in (["--format", "json"], ["--format", "text", "--width", "80"]):
        argv = [python, "-m", "kb", "diagnose", "-" if stdin else str(path), *fmt]
        with open(path if stdin else os.devnull, "rb") as source:
            proc = subprocess.run(argv, stdin=source, capture_output=True, cwd=tree, env=env, check=False)
        shown = b"-" if stdin else str(path.name).encode()
        out.append(b"$ kb diagnose " + shown + b" " + " ".join(fmt).encode() + b"\nexit "
                   + str(proc.returncode).encode() + b"\n--- stdout\n" + proc.stdout + b"\n--- stderr\n"
                   + proc.stderr + b"\n")
    return b"".join(out)


def snapshot(out: Path, tree: Path, python: str) -> int:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kb-answers-") as tmp:
        jobs: list[tuple[str, Path, bool]] = []
        for folder in (tree / "tests" / "fixtures" / "diagnose", tree / "examples"):
            for path in sorted(folder.rglob("*.txt")):
                jobs.append((str(path.relative_to(tree)).replace("/", "__"), path, False))
        for path in generated_inputs(Path(tmp)):
            jobs.append(("generated__" + path.name, path, False))
            if path.name in ("noisy-3mb.log", "noisy-cr-only.log", "bom.log", "latin1.log"):
                jobs.append(("generated__stdin__" + path.name, path, True))
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = pool.map(lambda job: (job[0], run_one(tree, python, job[1], job[2])), jobs)
            for name, data in results:
                (out / name).write_bytes(data.replace(str(tree).encode(), b"TREE").replace(tmp.encode(), b"TMP"))
    print(f"{len(jobs)} inputs -> {out}")
    return 0


def compare(old: Path, new: Path) -> int:
    names = sorted({p.name for p in old.iterdir()} | {p.name for p in new.iterdir()})
    differ = [n for n in names if not (old / n).exists() or not (new / n).exists()
              or (old / n).read_bytes() != (new / n).read_bytes()]
    for name in differ:
        print("differs:", name)
    print(f"{len(names)} inputs compared, {len(differ)} differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--tree", type=Path, default=REPO)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    ns = parser.parse_args()
    if ns.compare:
        return compare(*ns.compare)
    if ns.out is None:
        parser.error("give OUT or --compare OLD NEW")
    return snapshot(ns.out, ns.tree.resolve(), ns.python)


if __name__ == "__main__":
    raise SystemExit(main())
