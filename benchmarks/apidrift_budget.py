"""The API history's budgets (issue #25): the shipped file's size, the time to load it, and whether
`kb diagnose` touches it on an input without a drift form.

Load time: ``load_history()`` plus one lookup per table, in a fresh interpreter each round (the file
is not in any cache of the process), median of N rounds; wall time of that call only (interpreter
start-up excluded; `kb diagnose`'s own start-up is measured by benchmarks/startup_vs_commit.py).
Laziness: runs `python -m kb diagnose` on a one-line non-drift error and on a drift error in one
process each and reports whether kb.apidrift.history was imported and the file opened.

    python benchmarks/apidrift_budget.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOAD = """
import time
t = time.perf_counter()
from kb.apidrift.history import load_history
h = load_history()
h.exports("transformers", "transformers", h.versions("transformers")[-1])
h.params("trl", "trl.SFTConfig", h.versions("trl")[-1])
h.members("transformers", "transformers.DynamicCache", h.versions("transformers")[-1])
h.enum_values("transformers", "transformers.training_args.OptimizerNames", h.versions("transformers")[-1])
h.defaults("torch", "torch.load", h.versions("torch")[-1])
print((time.perf_counter() - t) * 1000)
"""
PROBE = """
import builtins, io, sys
opened = []
real_open = io.open
def spy(file, *a, **k):
    opened.append(str(file))
    return real_open(file, *a, **k)
builtins.open = io.open = spy
import gzip
gzip.builtins.open = spy
from kb.cli import main
try:
    main(["diagnose", sys.argv[1]])
except SystemExit:
    pass
print("history-module-imported", "kb.apidrift.history" in sys.modules, file=sys.stderr)
print("history-file-opened", any(f.endswith("api-history.json.gz") for f in opened), file=sys.stderr)
"""
INPUTS = {
    "no drift form (CUDA OOM)": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
                                "GPU 0 has a total capacity of 14.75 GiB of which 1.2 GiB is free.\n",
    "drift form (cannot import name)": "ImportError: cannot import name 'prepare_model_for_int8_training' from 'peft' "
                                       "(/usr/lib/python3/site-packages/peft/__init__.py)\n",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    ns = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["PYTHONPATH"] = str(REPO)
    path = REPO / "tables" / "api-history.json.gz"
    import gzip

    raw = len(gzip.decompress(path.read_bytes()))
    print(f"file: {path.relative_to(REPO)} {path.stat().st_size / 1e6:.2f} MB ({raw / 1e6:.1f} MB of JSON); budget 5 MB")
    times = []
    for _ in range(ns.rounds):
        out = subprocess.run([sys.executable, "-c", LOAD], cwd=REPO, env=env, capture_output=True, text=True, check=True)
        times.append(float(out.stdout.strip()))
    times.sort()
    print(f"load + one lookup per table: median {statistics.median(times):.1f} ms (min {times[0]:.1f}, "
          f"max {times[-1]:.1f}, {ns.rounds} fresh processes); budget 100 ms")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in INPUTS.items():
            log = Path(tmp) / "log.txt"
            log.write_text(text)
            out = subprocess.run([sys.executable, "-c", PROBE, str(log)], cwd=REPO, env=env, capture_output=True, text=True)
            flags = dict(line.split()[:2] for line in out.stderr.splitlines() if line.startswith("history-"))
            print(f"kb diagnose, {name}: history module imported {flags.get('history-module-imported')}, "
                  f"file read {flags.get('history-file-opened')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
