"""CPU time to load the API history and make one lookup per table, this tree's table against another
commit's, alternating in fresh processes (the development machine is shared: wall time there follows the
load of others' work, CPU time much less).

The same lookups as benchmarks/apidrift_budget.py (exports and members/enum values in transformers, params
in trl, defaults in torch), timed with ``time.process_time`` and ``time.perf_counter`` from before the import
of kb.apidrift.history; the other commit's table is read by this tree's code (``load_history(path)``).

    python benchmarks/apidrift_load_cpu.py 4d1604f [--rounds 15]
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
TABLE = "tables/api-history.json.gz"
LOAD = """
import sys, time
c, w = time.process_time(), time.perf_counter()
from kb.apidrift.history import load_history
h = load_history(sys.argv[1])
h.exports("transformers", "transformers", h.versions("transformers")[-1])
h.params("trl", "trl.SFTConfig", h.versions("trl")[-1])
h.members("transformers", "transformers.DynamicCache", h.versions("transformers")[-1])
h.enum_values("transformers", "transformers.training_args.OptimizerNames", h.versions("transformers")[-1])
h.defaults("torch", "torch.load", h.versions("torch")[-1])
print((time.process_time() - c) * 1000, (time.perf_counter() - w) * 1000)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the commit whose tables/api-history.json.gz to compare with")
    parser.add_argument("--rounds", type=int, default=15)
    ns = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["PYTHONPATH"] = str(REPO)
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "api-history.json.gz"
        other.write_bytes(subprocess.run(["git", "show", f"{ns.commit}:{TABLE}"], cwd=REPO, capture_output=True,
                                         check=True).stdout)
        tables = {ns.commit: other, "this tree": REPO / TABLE}
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in tables}
        for _ in range(ns.rounds):
            for name, path in tables.items():
                out = subprocess.run([sys.executable, "-c", LOAD, str(path)], cwd=REPO, env=env, capture_output=True,
                                     text=True, check=True)
                cpu, wall = map(float, out.stdout.split())
                times[name].append((cpu, wall))
        for name, path in tables.items():
            cpu = sorted(t[0] for t in times[name])
            wall = statistics.median(t[1] for t in times[name])
            print(f"{name:>10}  {path.stat().st_size / 1e6:.2f} MB  CPU median {statistics.median(cpu):.1f} ms "
                  f"(min {cpu[0]:.1f}, max {cpu[-1]:.1f}); wall median {wall:.1f} ms; {ns.rounds} fresh processes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
