"""A batch's scores by group (issue #24): kb-family reports that show their error, those whose excerpt stops before it,
unknown-family and out-of-scope reports; then each wrong or silent kb-family report (and each wrong answer) with its
family and its last error line.

    python benchmarks/corpus_batch_groups.py [corpus/reports-gh-err-01.jsonl ...] [--now]

Without --now the recorded first scores are grouped; with --now today's kb answers each report as
``scripts/corpus.py score`` does (labels as recorded, not re-homed).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import corpus as C  # noqa: E402  (scripts/corpus.py)
from fallback_train import NO_SIGNAL_CAUSES as UNSHOWN  # noqa: E402  (the causes that show no error)


def group(record: dict) -> str:
    family, cause = record["label"]["family"], record["label"]["cause"]
    if family in ("out-of-scope", "unknown-family"):
        return family
    return "kb-family, error not shown (cut)" if cause in UNSHOWN else "kb-family, error shown"


def main(argv: list[str]) -> int:
    now = "--now" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")] or [REPO / "corpus/reports-gh-err-01.jsonl"]
    knowledge = C.load_knowledge() if now else None
    case_family = {c.key: c.family for c in knowledge.cases} if knowledge else {}
    rows: dict[str, list[tuple[dict, str | None, str]]] = {
        "kb-family, error shown": [], "kb-family, error not shown (cut)": [], "unknown-family": [], "out-of-scope": []}
    for path in paths:
        for r in C.read(path):
            if knowledge is not None:
                got = C.answer(r, knowledge)
                g = C.grade(r["label"]["family"], got, case_family)
            else:
                got, g = r["first_score"]["answer"], r["first_score"]["grade"]
            rows[group(r)].append((r, got, g))
    for name, items in rows.items():
        n = {g: sum(1 for _, _, x in items if x == g) for g in ("right", "wrong", "silent")}
        extra = " (right = silent on it; wrong = claimed)" if name == "out-of-scope" else ""
        print(f"{name:<34} {len(items):>3}: right {n['right']:>3}, wrong {n['wrong']:>3}, silent {n['silent']:>3}{extra}")
    print("\nwrong or silent kb-family reports, and wrong answers anywhere:")
    for name, items in rows.items():
        for r, got, g in items:
            if g == "right" or (name == "unknown-family" and g == "silent"):
                continue
            lines = [line for line in r["error"].splitlines() if line.strip()]
            last = lines[-1].strip()[:150] if lines else "(no error text; title) " + r["title"][:100]
            print(f"- [{name}] {g:<6} {r['id']}  label={r['label']['family']}/{r['label']['cause']}  kb={got}")
            print(f"    last error line: {last}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
