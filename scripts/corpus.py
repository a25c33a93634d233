"""The corpus of real reports (corpus/README.md): validate, first-score, score and count it.

    python scripts/corpus.py validate
    python scripts/corpus.py score [--first] [--batch NAME]
    python scripts/corpus.py stats [--json]
    python scripts/corpus.py add FILE.jsonl --batch NAME
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402

CORPUS = REPO / "corpus"
MAX_ERROR = 6000
MAX_TOTAL_BYTES = 8 * 1024 * 1024
SPECIAL_FAMILIES = ("out-of-scope", "unknown-family")
KEYS = {"id", "url", "source", "repo", "date", "batch", "query", "rank", "error", "title", "versions", "label"}
SOURCES = ("github-issue", "forum", "qa")
BASES = ("thread-resolved", "labeller")
GRADES = ("right", "wrong", "silent")


def batch_files() -> list[Path]:
    return sorted(CORPUS.glob("reports-*.jsonl"))


def read(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def write(path: Path, records: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for r in records:
            handle.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")


def problems(record: dict, families: set[str]) -> list[str]:
    """What is wrong with one record (corpus/README.md's format), or nothing."""
    out = []
    missing = KEYS - record.keys()
    if missing:
        out.append(f"missing {sorted(missing)}")
    extra = record.keys() - KEYS - {"first_score"}
    if extra:
        out.append(f"unknown keys {sorted(extra)}")
    if record.get("source") not in SOURCES:
        out.append(f"source {record.get('source')!r} not one of {SOURCES}")
    error, title = record.get("error") or "", record.get("title") or ""
    if len(error) > MAX_ERROR:
        out.append(f"error is {len(error)} characters (at most {MAX_ERROR})")
    if not error.strip() and not title.strip():
        out.append("neither error nor title")
    label = record.get("label") or {}
    if label.get("family") not in families | set(SPECIAL_FAMILIES):
        out.append(f"label family {label.get('family')!r} is not a family of kb nor {SPECIAL_FAMILIES}")
    if not isinstance(label.get("cause"), str) or not label.get("cause"):
        out.append("label cause missing")
    if label.get("basis") not in BASES:
        out.append(f"label basis {label.get('basis')!r} not one of {BASES}")
    if not isinstance(record.get("versions"), dict):
        out.append("versions is not an object")
    score = record.get("first_score")
    if score is not None and score.get("grade") not in GRADES:
        out.append(f"first_score grade {score.get('grade')!r}")
    return out


def validate() -> int:
    knowledge = load_knowledge()
    families = {f.key for f in knowledge.families}
    seen: dict[str, Path] = {}
    total, bad = 0, 0
    for path in batch_files():
        total += path.stat().st_size
        for n, record in enumerate(read(path), start=1):
            for p in problems(record, families):
                print(f"{path.relative_to(REPO)}:{n}: {record.get('id')}: {p}")
                bad += 1
            if record.get("id") in seen:
                print(f"{path.relative_to(REPO)}:{n}: {record['id']} also in {seen[record['id']].name}")
                bad += 1
            seen[record.get("id")] = path
    if total > MAX_TOTAL_BYTES:
        print(f"corpus is {total} bytes (at most {MAX_TOTAL_BYTES})")
        bad += 1
    print(f"{len(seen)} reports in {len(batch_files())} batches, {total} bytes: {bad} problem(s)")
    return 1 if bad else 0


def answer(record: dict, knowledge) -> str | None:
    text = record["error"] if record["error"].strip() else record["title"]
    answers = diagnose_lines(text.splitlines(keepends=True), knowledge).answers
    if not answers:
        return None
    top = answers[0]
    return f"case:{top.match.entry.key}" if top.kind == "case" else f"family:{top.match.entry.key}"


def grade(label_family: str, got: str | None, case_family: dict[str, str]) -> str:
    in_scope = label_family not in SPECIAL_FAMILIES
    if got is None:
        return "silent" if label_family != "out-of-scope" else "right"
    if not in_scope:
        return "wrong"
    kind, key = got.split(":", 1)
    family = case_family.get(key) if kind == "case" else key
    return "right" if family == label_family else "wrong"


def score(first: bool, batch: str | None) -> int:
    knowledge = load_knowledge()
    case_family = {c.key: c.family for c in knowledge.cases}
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for path in batch_files():
        records = read(path)
        if batch and records and records[0].get("batch") != batch:
            continue
        changed = False
        for record in records:
            got = answer(record, knowledge)
            g = grade(record["label"]["family"], got, case_family)
            tally[record["batch"]][g] += 1
            tally["all"][g] += 1
            if first and "first_score" not in record:
                record["first_score"] = {"commit": commit, "answer": got, "grade": g}
                changed = True
        if changed:
            write(path, records)
    for name, counter in sorted(tally.items()):
        n = sum(counter.values()) or 1
        print(f"{name:<24} {n:>5}: right {counter['right']:>4} ({counter['right'] / n:.0%}), "
              f"wrong {counter['wrong']:>4} ({counter['wrong'] / n:.0%}), silent {counter['silent']:>4} "
              f"({counter['silent'] / n:.0%})")
    return 0


def stats(as_json: bool) -> int:
    rows = [r for path in batch_files() for r in read(path)]
    in_scope = [r for r in rows if r["label"]["family"] != "out-of-scope"]
    by_family = collections.Counter(r["label"]["family"] for r in in_scope)
    by_cause = collections.Counter((r["label"]["family"], r["label"]["cause"]) for r in in_scope)
    n = len(in_scope) or 1
    if as_json:
        print(json.dumps({"reports": len(rows), "in_scope": len(in_scope),
                          "families": [{"family": f, "reports": c, "share": round(c / n, 4)} for f, c in by_family.most_common()],
                          "causes": [{"family": f, "cause": c, "reports": k, "share": round(k / n, 4)}
                                     for (f, c), k in by_cause.most_common()]}, indent=2))
        return 0
    print(f"{len(rows)} reports, {len(in_scope)} in scope")
    cumulative = 0
    for (family, cause), count in by_cause.most_common():
        cumulative += count
        print(f"{count:>5} {count / n:6.1%} {cumulative / n:6.1%}  {family:<22} {cause}")
    return 0


def add(path: Path, batch: str) -> int:
    knowledge = load_knowledge()
    families = {f.key for f in knowledge.families}
    new = read(path)
    target = CORPUS / f"reports-{batch}.jsonl"
    existing = read(target) if target.exists() else []
    ids = {r["id"] for p in batch_files() for r in read(p)}
    added = 0
    for record in new:
        record["batch"] = batch
        if record.get("id") in ids:
            print(f"skipped, already in the corpus: {record.get('id')}")
            continue
        bad = problems(record, families)
        if bad:
            print(f"skipped {record.get('id')}: {'; '.join(bad)}")
            continue
        existing.append(record)
        ids.add(record["id"])
        added += 1
    write(target, existing)
    print(f"added {added} of {len(new)} to {target.relative_to(REPO)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("validate")
    p = sub.add_parser("score")
    p.add_argument("--first", action="store_true", help="record first scores where missing (never overwrites)")
    p.add_argument("--batch")
    p = sub.add_parser("stats")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("add")
    p.add_argument("file", type=Path)
    p.add_argument("--batch", required=True)
    ns = parser.parse_args()
    if ns.command == "validate":
        return validate()
    if ns.command == "score":
        return score(ns.first, ns.batch)
    if ns.command == "stats":
        return stats(ns.json)
    return add(ns.file, ns.batch)


if __name__ == "__main__":
    raise SystemExit(main())
