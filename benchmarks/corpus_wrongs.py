"""List the corpus reports today's kb answers wrongly (or, with --silent, leaves unanswered), with what decided it.

For each report graded ``wrong`` by ``python scripts/corpus.py score`` (labels as counted: tables/frequency-aliases.toml's
[[rehome]] applied) it prints the id, the URL, the label's family / cause, kb's top answer, its ``basis`` (case,
family-evidence, family-prior, family-keyword, family-learned), the signature or prior that fired, and the line that
decided it (the matched error's line number and message, or the prior's evidence line). This is the work list for
fixing the *mechanism* behind a wrong answer, not the report's wording.

    python benchmarks/corpus_wrongs.py                 # the wrong answers
    python benchmarks/corpus_wrongs.py --out-of-scope  # only out-of-scope reports claimed
    python benchmarks/corpus_wrongs.py --silent        # the silent in-scope reports, grouped by (family, cause)
    python benchmarks/corpus_wrongs.py --json          # machine-readable
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import corpus  # noqa: E402  (scripts/corpus.py: the corpus's reader, re-homing and grading)
from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.diagnose.document import answer_document  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402


def diagnose(record: dict, knowledge) -> dict | None:
    """kb's top answer as the JSON document gives it (None when silent); the text scored is the one score uses."""
    text = record["error"] if record["error"].strip() else record["title"]
    answers = diagnose_lines(text.splitlines(keepends=True), knowledge).answers
    return answer_document(answers[0]) if answers else None


def deciding_line(doc: dict) -> str:
    """The line that decided the answer: a prior's evidence line, else the matched error's line and message."""
    if doc["basis"] in ("family-prior", "family-keyword", "family-learned") and doc["evidence"]:
        return doc["evidence"][0]
    err = doc["error"]
    return f"line {err['line']}: {err['type'] or ''}: {err['message'][:200]}"


def rows(knowledge) -> list[dict]:
    case_family = {c.key: c.family for c in knowledge.cases}
    records = corpus.counted_rows([r for p in corpus.batch_files() for r in corpus.read(p)], knowledge)
    out = []
    for record in records:
        doc = diagnose(record, knowledge)
        got = None if doc is None else f"{doc['kind']}:{doc['id']}"
        label = record["label"]
        out.append({
            "id": record["id"], "url": record["url"], "family": label["family"], "cause": label["cause"],
            "grade": corpus.grade(label["family"], got, case_family), "answer": got,
            "answer_family": None if doc is None else doc["family"],
            "basis": None if doc is None else doc["basis"],
            "signature": None if doc is None else doc["signature"],
            "line": None if doc is None else deciding_line(doc),
            "has_error": bool(record["error"].strip()),
        })
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-of-scope", action="store_true", help="only out-of-scope reports claimed")
    parser.add_argument("--silent", action="store_true", help="silent in-scope reports by (family, cause)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    knowledge = load_knowledge()
    all_rows = rows(knowledge)
    if args.silent:
        silent = [r for r in all_rows if r["grade"] == "silent" and r["has_error"]]
        groups = collections.Counter((r["family"], r["cause"]) for r in silent)
        if args.json:
            print(json.dumps([{"family": f, "cause": c, "reports": n, "ids": [r["id"] for r in silent
                               if (r["family"], r["cause"]) == (f, c)]} for (f, c), n in groups.most_common()], indent=1))
            return 0
        by_family = collections.Counter(r["family"] for r in silent)
        print(f"{len(silent)} silent in-scope reports with error output")
        for family, n in by_family.most_common():
            print(f"{n:>4}  {family}")
        print()
        for (family, cause), n in groups.most_common(60):
            print(f"{n:>4}  {family:<20} {cause}")
        return 0
    wrong = [r for r in all_rows if r["grade"] == "wrong"]
    if args.out_of_scope:
        wrong = [r for r in wrong if r["family"] == "out-of-scope"]
    if args.json:
        print(json.dumps(wrong, indent=1))
        return 0
    for r in wrong:
        print(f"{r['id']}  {r['url']}")
        print(f"  label  {r['family']} / {r['cause']}")
        print(f"  kb     {r['answer']} ({r['basis']}, {r['signature']})")
        print(f"  line   {r['line']}")
    grades = collections.Counter(r["grade"] for r in all_rows)
    oos = [r for r in all_rows if r["family"] == "out-of-scope"]
    claimed = sum(r["grade"] == "wrong" for r in oos)
    print(f"\n{len(all_rows)} reports: right {grades['right']}, wrong {grades['wrong']}, silent {grades['silent']}; "
          f"out-of-scope claimed {claimed} of {len(oos)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
