"""Score how complete `kb diagnose`'s answers to real API-drift reports are (issue #25's measure).

A batch of the dev set (tests/fixtures/diagnose/manifest.toml, ``set = ...``) whose labels file
(tests/fixtures/diagnose/<set>-labels.toml) says, per report, what a complete answer names:

- ``replacement``: a regex the top answer's document must match ("upgrade": the answer tells to upgrade;
  "none": no replacement exists and the answer must say so);
- ``release``: the exact release of the change, "lib X.Y.Z" ("" when the thread does not settle it); the
  answer must name X.Y.Z (a release X.Y.0 may be written X.Y).

Each report is graded on the top answer:

- right: the labelled family (or a case of it), the replacement, and the release;
- partial: the family is right but the replacement or the release is missing or another one;
- wrong: another family (or a case of another family);
- silent: no answer (right when the label's family is "none": no family fits the report).

    python benchmarks/drift_answers.py --set drift-32            # summary and every report
    python benchmarks/drift_answers.py --set drift-32 --json     # machine-readable
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.diagnose.document import answer_document  # noqa: E402
from kb.knowledge.examples import load_examples  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "diagnose"
UPGRADE = r"upgrade|pip install -U|newer than"
NONE = r"no replacement|none exists|not in any|no covered .* release has|in no .* release"


def names_release(text: str, release: str) -> bool:
    """Whether ``text`` names ``release`` ("transformers 4.42.0"; 4.42.0 may be written 4.42)."""
    version = release.split()[-1]
    forms = [re.escape(version)]
    if version.endswith(".0"):
        forms.append(re.escape(version[:-2]) + r"(?![.\d])")
    return re.search(r"(?<![\d.])(?:" + "|".join(forms) + r")(?![\d])", text) is not None


def grade(family: str, doc: dict | None, label: dict) -> tuple[str, str]:
    """(grade, why) of one report's top answer document."""
    if doc is None:  # a report labelled family "none" (no family fits) is answered right by silence
        return ("right", "rightly silent") if family == "none" else ("silent", "no answer")
    got_family = doc.get("family") or doc.get("key")
    if got_family != family:
        return "wrong", f"answered {doc.get('kind')} {doc.get('key')} ({got_family})"
    # The learned fallback's evidence carries numbers of its own ("similar report (0.24): URL", "right 15 of 16
    # times"): a release or a version bound must not be read off them.
    text = re.sub(r"similar report \(\d\.\d+\)|\d+% probable|right \d+ of \d+ times", "",
                  json.dumps(doc, ensure_ascii=False))
    wanted = label.get("replacement", "")
    pattern = {"upgrade": UPGRADE, "none": NONE}.get(wanted, wanted)
    missing = []
    if pattern and not re.search(pattern, text, re.IGNORECASE):
        missing.append(f"replacement /{wanted}/")
    if label.get("release") and not names_release(text, label["release"]):
        missing.append(f"release {label['release']}")
    return ("partial", "missing " + ", ".join(missing)) if missing else ("right", "")


def evaluate(subset: str) -> list[dict]:
    knowledge = load_knowledge()
    drift_families = frozenset(knowledge.api_history_families)
    labels_path = FIXTURES / f"{subset}-labels.toml"
    # A batch without a labels file (drift-14) is graded on the family alone.
    rows_labelled = tomllib.loads(labels_path.read_text())["label"] if labels_path.exists() else []
    labels = {row["file"]: row for row in rows_labelled}
    rows = []
    for entry in load_examples(FIXTURES / "manifest.toml"):
        if entry.get("set") != subset:
            continue
        with open(entry["path"], encoding="utf-8", errors="replace") as handle:
            answers = diagnose_lines(handle, knowledge).answers
        doc = answer_document(answers[0], drift_families) if answers else None
        if doc is not None:
            m = answers[0].match
            doc = {**doc, "kind": answers[0].kind, "key": m.entry.slug, "family": m.entry.family}
        status, why = grade(entry["family"], doc, labels.get(entry["file"], {}))
        rows.append({"file": entry["file"], "source": entry["source"], "family": entry["family"],
                     "grade": status, "why": why, "answer": None if doc is None else f"{doc['kind']} {doc['key']}",
                     "drift": None if doc is None else doc.get("drift")})
    return rows


def summary(rows: list[dict]) -> str:
    n = len(rows)
    counts = {g: sum(r["grade"] == g for r in rows) for g in ("right", "partial", "wrong", "silent")}
    return f"{n} reports: " + ", ".join(f"{g} {c} ({100 * c / n:.0f}%)" for g, c in counts.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="subset", required=True)
    parser.add_argument("--json", action="store_true")
    ns = parser.parse_args(argv)
    rows = evaluate(ns.subset)
    if ns.json:
        print(json.dumps({"rows": rows, "summary": summary(rows)}, indent=1))
        return 0
    for r in rows:
        print(f"{r['grade']:8} {r['file']:48} {r['family']:18} got {r['answer'] or '-':40} {r['why']}")
    print()
    print(summary(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
