"""How fast `kb diagnose` starts and how it copes with a large log.

1. Start-up: median wall time of `python -m kb diagnose` on a one-line input vs `python -c pass`
   (target: within 2x; kb diagnose must not import torch or other heavy libraries). Measured on
   two copies of the package under /tmp, run with PYTHONDONTWRITEBYTECODE=1: one byte-compiled
   (what `pip install .`, or the README's `pip install -e . && python -m compileall -q kb`, leaves),
   one without bytecode (an editable install where bytecode is never written: Python recompiles
   kb's source on every run).
2. A generated 200 MB training log (progress bars, INFO lines, warnings, [rankN] prefixes, a few
   errors, the real traceback at the end), written under /tmp, not the repo: wall time and the
   child's peak memory (ru_maxrss from wait4) to diagnose it (targets: < 10 s, < 200 MB).

    python benchmarks/diagnose_speed.py [--size-mb 200] [--runs 10] [--keep]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TAIL = """[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/user/train.py", line 88, in <module>
[rank1]:     trainer.train()
[rank1]:   File "/usr/local/lib/python3.11/site-packages/transformers/trainer.py", line 2245, in train
[rank1]:     return inner_training_loop(
[rank1]:   File "/home/user/model.py", line 287, in forward
[rank1]:     embedding = torch.matmul(label, self.label_weight)
[rank1]: RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float
[rank0]:[E1121 10:00:00.000000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
"""


def generate_log(path: Path, size_mb: int) -> int:
    """Write a realistic-looking training log of about ``size_mb`` MB; return its size in bytes."""
    target = size_mb * 1024 * 1024
    block_lines = []
    for step in range(200):
        rank = step % 4
        block_lines.append(
            f"[rank{rank}]: {step:>5}/100000 [01:{step % 60:02d}<9:59:00,  2.83it/s]\r"
            f"{step + 1:>5}/100000 [01:{step % 60:02d}<9:59:00,  2.83it/s, loss=2.{step % 97:02d}]\n"
        )
        block_lines.append(
            f"2025-11-21 10:{step % 60:02d}:{step % 60:02d},123 - INFO - trainer - step {step} "
            f"loss {2 + step / 1000:.4f} grad_norm 1.4142 learning_rate 2.0e-05 epoch 0.{step:03d}\n"
        )
        if step % 50 == 0:
            block_lines.append(
                "/usr/local/lib/python3.11/site-packages/torch/utils/checkpoint.py:90: UserWarning: "
                "None of the inputs have requires_grad=True. Gradients will be None\n  warnings.warn(\n"
            )
        if step == 123:
            block_lines.append("ValueError: could not convert string to float: 'n/a' (skipping sample 123)\n")
    block = "".join(block_lines).encode()
    written = 0
    with open(path, "wb") as out:
        while written + len(block) < target:
            out.write(block)
            written += len(block)
        tail = TAIL.encode()
        out.write(tail)
        written += len(tail)
    return written


def time_command(argv: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    """Median wall time; run outside the repo, so `python -m kb` imports the package ``env`` names."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=tempfile.gettempdir(), capture_output=True, check=False, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def package_copy(tmp: Path, name: str, compiled: bool) -> dict[str, str]:
    """Copy kb/ (without __pycache__) under ``tmp/name``; return an environment that imports it."""
    target = tmp / name / "kb"
    shutil.copytree(REPO / "kb", target, ignore=shutil.ignore_patterns("__pycache__"))
    if compiled:
        compileall.compile_dir(str(target), quiet=1)
    return {**os.environ, "PYTHONPATH": str(tmp / name), "PYTHONDONTWRITEBYTECODE": "1",
            "KB_KNOWLEDGE_DIR": str(REPO)}


def run_measured(argv: list[str]) -> tuple[float, int, int, bytes]:
    """Run ``argv``; return (wall seconds, peak RSS in bytes, exit code, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss * 1024, proc.returncode, out  # ru_maxrss is KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="keep the generated log")
    ns = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kb-bench-") as tmp:
        small = Path(tmp) / "one-line.txt"
        small.write_text("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n")
        compiled_env = package_copy(Path(tmp), "compiled", compiled=True)
        source_env = package_copy(Path(tmp), "source-only", compiled=False)
        argv = [sys.executable, "-m", "kb", "diagnose", str(small)]
        check = subprocess.run([sys.executable, "-c", "import kb; print(kb.__file__)"], cwd=tempfile.gettempdir(),
                               env=compiled_env, capture_output=True, text=True).stdout.strip()
        assert check.startswith(str(Path(tmp) / "compiled")), f"the timed runs would import {check}"
        answered = subprocess.run(argv, cwd=tempfile.gettempdir(), env=compiled_env, capture_output=True, text=True)
        assert answered.returncode == 0, f"the timed command does not answer: {answered.stderr.strip()}"
        time_command(argv, 2, compiled_env)  # warm the signature index cache and the page cache
        base, kb_compiled, kb_source = [], [], []
        for _ in range(3):  # interleaved rounds: a noisy machine slows all three alike
            base.append(time_command([sys.executable, "-c", "pass"], ns.runs))
            kb_compiled.append(time_command(argv, ns.runs, compiled_env))
            kb_source.append(time_command(argv, ns.runs, source_env))
        base_ms, compiled_ms, source_ms = (statistics.median(x) * 1000 for x in (base, kb_compiled, kb_source))
        imports = subprocess.run(
            [sys.executable, "-c",
             "import sys, runpy; sys.argv=['kb','diagnose',%r]\nfrom kb.cli import main\ntry: main()\nfinally:\n"
             " print(' '.join(sorted(m for m in ('torch','numpy','transformers','yaml','argparse','json') if m in sys.modules)) or 'none',"
             " file=sys.stderr)" % str(small)],
            cwd=REPO, capture_output=True, text=True,
        ).stderr.strip().splitlines()[-1]
        print(f"start-up: python -c pass {base_ms:.1f} ms; kb diagnose (one line): byte-compiled {compiled_ms:.1f} ms, "
              f"ratio {compiled_ms / base_ms:.2f}x (target <= 2x); without bytecode {source_ms:.1f} ms, "
              f"ratio {source_ms / base_ms:.2f}x; heavy modules imported: {imports}")

        big = Path("/tmp") / f"kb-diagnose-{ns.size_mb}mb.log"
        size = generate_log(big, ns.size_mb)
        try:
            wall, rss, code, out = run_measured([sys.executable, "-m", "kb", "diagnose", str(big), "--format", "json"])
            import json

            doc = json.loads(out)
            top = doc["matches"][0]["slug"] if doc["matches"] else None
            print(f"{size / 1e6:.0f} MB log ({size / 2**20:.0f} MiB): {wall:.2f} s (target < 10 s), "
                  f"peak RSS {rss / 2**20:.0f} MiB (target < 200 MB), exit {code}, errors seen {doc['errors_seen']}, "
                  f"root line {doc['root_error']['line']}, top match {top}")
        finally:
            if not ns.keep:
                big.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
