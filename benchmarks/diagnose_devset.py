"""Score `kb diagnose` on the dev set of real error outputs (tests/fixtures/diagnose/manifest.toml).

Prints top-1 accuracy on entries whose expected case exists, and the false-positive rate on
entries that must match nothing ("none": near-misses and unrelated errors). Entries whose case
folder does not exist yet are listed as "skipped: case missing" and not counted, so the numbers
become meaningful as cases land.

    python benchmarks/diagnose_devset.py            # summary and every miss
    python benchmarks/diagnose_devset.py --verbose  # every entry
    python benchmarks/diagnose_devset.py --json     # machine-readable
    python benchmarks/diagnose_devset.py --set heldout-1   # one batch (entries with set = "...")
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.diagnose.match import MEDIUM  # noqa: E402
from kb.knowledge.registry import all_cases  # noqa: E402

MANIFEST = REPO / "tests" / "fixtures" / "diagnose" / "manifest.toml"


def evaluate(manifest: Path = MANIFEST, subset: str | None = None) -> dict:
    entries = tomllib.loads(manifest.read_text(encoding="utf-8"))["entry"]
    if subset:
        entries = [e for e in entries if e.get("set") == subset]
    cases = all_cases()
    slugs = {c.slug for c in cases}
    rows = []
    for entry in entries:
        path = manifest.parent / entry["file"]
        expect = entry["expect"]
        with open(path, encoding="utf-8", errors="replace") as handle:
            diagnosis = diagnose_lines(handle, cases)
        ranked = [(m.case.slug, m.score) for m in diagnosis.matches]
        top = ranked[0] if ranked else (None, 0.0)
        if expect != "none" and expect not in slugs:
            status = "skipped: case missing"
        elif expect == "none":
            status = "false positive" if ranked else "ok"
        else:
            status = "ok" if top[0] == expect else ("wrong case" if ranked else "missed")
        rows.append({"file": entry["file"], "source": entry["source"], "expect": expect, "got": top[0],
                     "score": top[1], "status": status, "ranked": ranked[:3], "set": entry.get("set", "dev"),
                     "kind": entry.get("kind") or ("unrelated" if entry.get("note", "").startswith("unrelated")
                                                   else "near-miss" if expect == "none" else "positive")})
    labelled = [r for r in rows if r["expect"] != "none" and r["status"] != "skipped: case missing"]
    negatives = [r for r in rows if r["expect"] == "none"]
    fp = [r for r in negatives if r["status"] == "false positive"]
    fp_medium = [r for r in fp if r["score"] >= MEDIUM]
    correct = [r for r in labelled if r["status"] == "ok"]
    return {
        "entries": len(rows),
        "cases_known": sorted(slugs),
        "labelled_with_case": len(labelled),
        "top1_correct": len(correct),
        "top1_accuracy": len(correct) / len(labelled) if labelled else None,
        "negatives": len(negatives),
        "false_positives": len(fp),
        "false_positive_rate": len(fp) / len(negatives) if negatives else None,
        "false_positives_medium_or_high": len(fp_medium),
        "skipped_case_missing": sorted({r["expect"] for r in rows if r["status"] == "skipped: case missing"}),
        "skipped_entries": sum(r["status"] == "skipped: case missing" for r in rows),
        "rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--set", dest="subset", help="only entries of this set (e.g. heldout-1)")
    ns = parser.parse_args()
    result = evaluate(subset=ns.subset)
    if ns.json:
        print(json.dumps(result, indent=2))
        return 0
    for r in result["rows"]:
        if ns.verbose or r["status"] not in ("ok", "skipped: case missing"):
            got = f"{r['got']} ({r['score']:.2f})" if r["got"] else "no match"
            print(f"{r['status']:<22} {r['file']:<48} expect {r['expect']:<34} got {got}")
    acc = result["top1_accuracy"]
    fpr = result["false_positive_rate"]
    print()
    print(f"dev set: {result['entries']} entries from public issue threads; cases known: {', '.join(result['cases_known'])}")
    print("top-1 accuracy (classes with a case): "
          + (f"{result['top1_correct']}/{result['labelled_with_case']} = {acc:.1%}" if acc is not None else "n/a"))
    print(f"false positives on 'none' entries:    {result['false_positives']}/{result['negatives']} = {fpr:.1%}"
          f"  (at medium/high confidence: {result['false_positives_medium_or_high']})")
    if not ns.subset:
        print("by batch (dev: tuned on; heldout-N: scored once when merged, see benchmarks/results/):")
        for name in sorted({r["set"] for r in result["rows"]}):
            rows = [r for r in result["rows"] if r["set"] == name]
            pos = [r for r in rows if r["expect"] != "none" and r["status"] != "skipped: case missing"]
            neg = [r for r in rows if r["expect"] == "none"]
            unrelated = [r for r in neg if r["kind"] == "unrelated"]
            print(f"  {name:<10} top-1 {sum(r['status'] == 'ok' for r in pos)}/{len(pos)}, false positives "
                  f"{sum(r['status'] == 'false positive' for r in neg)}/{len(neg)} "
                  f"(on entries marked unrelated {sum(r['status'] == 'false positive' for r in unrelated)}/{len(unrelated)})")
    print(f"skipped: case missing: {result['skipped_entries']} entries for {len(result['skipped_case_missing'])} "
          f"slugs ({', '.join(result['skipped_case_missing'])})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
