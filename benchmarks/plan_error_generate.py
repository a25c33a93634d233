"""`kb plan --task generate`'s error against the generation grid (benchmarks/plan_grid_generate.py), fitted and
held-out parts apart, per phase (prefill, decode) and for the whole call.

    python benchmarks/plan_error_generate.py                  # the table, with tables/plan-trainers.toml as it is
    python benchmarks/plan_error_generate.py --markdown FILE  # also write it as markdown

Fitted rows: ids not divisible by 3; held out: ids divisible by 3 (the grid's rule, decided before measuring).
The generate terms of tables/plan-trainers.toml were set from the fitted rows only (docs/plan.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from kb.plan.estimate import GIB, constants, estimate
from kb.plan.shapes import load_shape
from kb.plan.spec import RunSpec
from kb.plan.trainers import trainer_constants
from plan_error import stats  # noqa: E402  (one error summary for every grid)

GRID = ROOT / "benchmarks" / "results" / "plan-grid-generate-h100.jsonl"


def spec_of(row: dict[str, Any]) -> RunSpec:
    """A grid row as `kb plan --task generate` is given it: --batch, --seq prompt + new tokens, --prompt-len."""
    return RunSpec(task="generate", quant=row["quant"], batch=int(row["batch"]),
                   seq=int(row["prompt_len"]) + int(row["new_tokens"]), prompt_len=int(row["prompt_len"]))


def errors(rows: list[dict[str, Any]], c: dict[str, float]) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        p = estimate(load_shape(r["model"]), spec_of(r), c)[0]
        pred = {k: v / GIB for k, v in p.phases.items()}
        x = {"id": r["id"], "model": r["model"], "held_out": r["id"] % 3 == 0, "row": r, "phase": p.peak_phase,
             "measured": r["peak_alloc_gib"], "predicted": p.peak_allocated / GIB,
             "measured_reserved": r["peak_reserved_gib"], "predicted_reserved": p.peak_reserved / GIB}
        x["err"] = (x["predicted"] - x["measured"]) / x["measured"]
        x["err_reserved"] = (x["predicted_reserved"] - x["measured_reserved"]) / x["measured_reserved"]
        for phase in ("prefill", "decode"):
            x[f"{phase}_measured"] = r[f"{phase}_peak_alloc_gib"]
            x[f"{phase}_predicted"] = pred[phase]
            x[f"err_{phase}"] = (pred[phase] - r[f"{phase}_peak_alloc_gib"]) / r[f"{phase}_peak_alloc_gib"]
        out.append(x)
    return out


def summary_lines(errs: list[dict[str, Any]]) -> list[str]:
    out = ["| part | configs | MAE peak alloc | worst under | worst over | MAE prefill | MAE decode | MAE reserved | worst under (reserved) |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, part in (("fitted", [x for x in errs if not x["held_out"]]), ("held out", [x for x in errs if x["held_out"]]),
                       ("all", errs)):
        a, pf, dc, r = stats(part), stats(part, "err_prefill"), stats(part, "err_decode"), stats(part, "err_reserved")
        out.append(f"| {name} | {a['n']} | {100 * a['mae']:.1f}% | {100 * a['worst_under']:+.1f}% | {100 * a['worst_over']:+.1f}% | "
                   f"{100 * pf['mae']:.1f}% | {100 * dc['mae']:.1f}% | {100 * r['mae']:.1f}% | {100 * r['worst_under']:+.1f}% |")
    return out


def table_md(errs: list[dict[str, Any]]) -> str:
    lines = ["| id | part | model | run | measured peak alloc GiB | predicted | error | prefill measured / predicted | "
             "decode measured / predicted | measured reserved | predicted | error | predicted peak phase |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for x in sorted(errs, key=lambda x: x["id"]):
        r = x["row"]
        run = f"{r['quant']}, b{r['batch']} {r['prompt_len']}+{r['new_tokens']}"
        lines.append(f"| {x['id']} | {'held out' if x['held_out'] else 'fitted'} | {x['model']} | {run} | {x['measured']:.3f} | "
                     f"{x['predicted']:.3f} | {100 * x['err']:+.1f}% | {x['prefill_measured']:.3f} / {x['prefill_predicted']:.3f} "
                     f"({100 * x['err_prefill']:+.1f}%) | {x['decode_measured']:.3f} / {x['decode_predicted']:.3f} "
                     f"({100 * x['err_decode']:+.1f}%) | {x['measured_reserved']:.3f} | {x['predicted_reserved']:.3f} | "
                     f"{100 * x['err_reserved']:+.1f}% | {x['phase']} |")
    return "\n".join(lines)


def read_rows(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    good = [r for r in rows if "peak_alloc_gib" in r and not r.get("error")]
    return sorted(good, key=lambda r: r["id"]), [r for r in rows if r not in good]


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--grid", type=Path, default=GRID)
    ap.add_argument("--markdown", type=Path)
    ns = ap.parse_args()
    rows, failed = read_rows(ns.grid)
    errs = errors(rows, {**constants(), **trainer_constants()})
    text = "\n".join(summary_lines(errs)) + "\n\n" + table_md(errs) + "\n"
    if failed:
        text += "\nNot scored (no peak measured):\n" + "\n".join(f"- {r['id']} {r['model']}: {r.get('error')}" for r in failed) + "\n"
    print(text)
    if ns.markdown:
        ns.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
