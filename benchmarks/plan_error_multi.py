"""`kb plan --strategy`'s per-rank error against the two-GPU grid (benchmarks/plan_grid_multi.py).

    python benchmarks/plan_error_multi.py [--grid FILE] [--markdown FILE]

Each rank's measured peak allocated (over the 3 steps, after the Trainer wrapped the model) against the
per-rank prediction; an under-prediction is the costly error (an OOM the plan said would not happen).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kb.plan.estimate import GIB, estimate  # noqa: E402
from kb.plan.shapes import load_shape  # noqa: E402
from kb.plan.spec import RunSpec  # noqa: E402

GRID = ROOT / "benchmarks" / "results" / "plan-grid-multi-h100.jsonl"


def spec_of(row: dict[str, Any]) -> RunSpec:
    strategy = "fsdp" if row["strategy"].startswith("fsdp") else row["strategy"]
    return RunSpec(lora_r=row["lora_r"], lora_alpha=2 * row["lora_r"], lora_dropout=row["lora_dropout"],
                   target_modules=row["targets"], batch=row["batch"], seq=row["seq"], grad_ckpt=row["grad_ckpt"],
                   optim=row["optim"], strategy=strategy, gpus=row["world_size"],
                   fsdp_sharding="shard_grad_op" if row["strategy"] == "fsdp-grad-op" else "full_shard")


def errors(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        plans = estimate(load_shape(row["model"]), spec_of(row))
        for rank in row["ranks"]:
            p = plans[rank["rank"]]
            m = rank["peak_alloc_gib"]
            out.append({"id": row["id"], "model": row["model"], "strategy": row["strategy"], "rank": rank["rank"],
                        "lora_r": row["lora_r"], "shape": f"{row['batch']}x{row['seq']}", "ckpt": row["grad_ckpt"],
                        "measured": m, "predicted": p.peak_allocated / GIB, "err": (p.peak_allocated / GIB - m) / m,
                        "phase": p.peak_phase})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", type=Path, default=GRID)
    ap.add_argument("--markdown", type=Path)
    ns = ap.parse_args()
    rows = [json.loads(line) for line in ns.grid.read_text().splitlines() if line.strip()]
    bad = [r for r in rows if "ranks" not in r or any("peak_alloc_gib" not in k for k in r["ranks"])]
    errs = errors([r for r in rows if r not in bad])
    lines = ["| id | model | strategy | run | rank | measured GiB | predicted | error | predicted phase |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for x in errs:
        run = ("full" if x["lora_r"] == 0 else f"LoRA r{x['lora_r']}") + f", {x['shape']}, ckpt {x['ckpt']}"
        lines.append(f"| {x['id']} | {x['model']} | {x['strategy']} | {run} | {x['rank']} | {x['measured']:.2f} | "
                     f"{x['predicted']:.2f} | {100 * x['err']:+.1f}% | {x['phase']} |")
    lines += ["", "| part | ranks | mean abs. error | worst under | worst over |", "| --- | --- | --- | --- | --- |"]
    parts = [("fitted (id % 3 != 0)", [x for x in errs if x["id"] % 3]), ("held out (id % 3 == 0)", [x for x in errs if not x["id"] % 3])]
    parts += [(f"strategy {s}", [x for x in errs if x["strategy"] == s]) for s in sorted({x["strategy"] for x in errs})]
    for name, part in parts:
        pe = [x["err"] for x in part]
        if pe:
            lines.append(f"| {name} | {len(pe)} | {100 * sum(map(abs, pe)) / len(pe):.1f}% | {100 * min(0.0, min(pe)):+.1f}% | "
                         f"{100 * max(0.0, max(pe)):+.1f}% |")
    e = [x["err"] for x in errs]
    if e:
        lines += ["", f"{len(e)} ranks of {len(rows) - len(bad)} runs: mean absolute error {100 * sum(map(abs, e)) / len(e):.1f}%, "
                      f"worst under {100 * min(0.0, min(e)):+.1f}%, worst over {100 * max(0.0, max(e)):+.1f}%"]
    for r in bad:
        lines.append(f"not measured: config {r.get('id')} {r.get('model')} {r.get('strategy')}: {r.get('error', 'no per-rank peak')}")
    text = "\n".join(lines) + "\n"
    print(text)
    if ns.markdown:
        ns.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
