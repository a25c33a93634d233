"""Dump kb's top answer for every dev-set entry, runtime-38..44 fixture and corpus report of a checkout, in one process,
and compare two dumps entry by entry (what a rule change moved, and whether a right answer turned wrong).

    python benchmarks/top_answers_dump.py ROOT OUT.json        # ROOT: the checkout to run (this one: .)
    python benchmarks/top_answers_dump.py --compare OLD.json NEW.json

The dev set is graded as benchmarks/diagnose_devset.py grades it (sets whose first score is pending are left out), the
runtime-38..44 fixtures on their labels.toml family (as benchmarks/runtime_tracebacks_score.py, "none" = out of scope),
the corpus by benchmarks/corpus_wrongs.py's rows() (scripts/corpus.py's grading). ROOT's own kb is imported, so run each
checkout's dump in its own process (a git archive of the base commit for "before").
"""

from __future__ import annotations

import collections
import json
import sys
import tomllib
from pathlib import Path


def dump(root: Path, out: Path) -> None:
    sys.path[:0] = [str(root), str(root / "scripts"), str(root / "benchmarks")]
    import corpus_wrongs
    from diagnose_devset import grade

    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.examples import pending_sets
    from kb.knowledge.registry import load_knowledge

    knowledge = load_knowledge()
    slugs = {c.key: c.slug for c in knowledge.cases}
    case_family = {c.slug: c.family for c in knowledge.cases}

    def top(lines) -> list[str] | None:  # noqa: ANN001 - lines of a file
        answers = diagnose_lines(lines, knowledge).answers
        if not answers:
            return None
        entry = answers[0].match.entry
        return [answers[0].kind, entry.key, entry.family if answers[0].kind == "case" else entry.key]

    fixtures = root / "tests" / "fixtures" / "diagnose"
    pending = pending_sets(fixtures / "manifest.toml")
    result: dict[str, dict[str, dict]] = {"dev": {}, "runtime": {}, "corpus": {}}
    for e in tomllib.loads((fixtures / "manifest.toml").read_text(encoding="utf-8"))["entry"]:
        if e.get("set") in pending or any(Path(e["file"]).name.startswith(f"{p}-") for p in pending):
            continue
        with open(fixtures / e["file"], encoding="utf-8", errors="replace") as handle:
            got = top(handle)
        shown = None if got is None else (got[0], slugs[got[1]] if got[0] == "case" else got[1])
        result["dev"][e["file"]] = {"got": got, "set": e.get("set", ""),
                                    "grade": grade(e["expect"], e["family"], shown, case_family)}
    for folder in sorted(fixtures.glob("runtime-*/")):
        labels = {x["file"]: x for x in tomllib.loads((folder / "labels.toml").read_text(encoding="utf-8"))["label"]}
        for path in sorted(folder.glob("*.txt")):
            with open(path, encoding="utf-8") as handle:
                got = top(list(handle))
            family = labels[path.name]["family"]
            graded = ("claimed" if got else "unclaimed") if family == "none" else \
                "silent" if got is None else "right" if got[2] == family else "wrong"
            result["runtime"][f"{folder.name}/{path.name}"] = {"got": got, "set": folder.name, "grade": graded}
    for row in corpus_wrongs.rows(knowledge):
        result["corpus"][f"{row['id']}|{row['url']}"] = {"got": row["answer"], "set": "", "grade": row["grade"]}
    out.write_text(json.dumps(result, indent=0), encoding="utf-8")


def compare(old: dict, new: dict) -> int:
    """Print each part's grades before and after, by set, and every entry whose answer changed; 1 when a right
    answer turned wrong."""
    worse = 0
    for part in ("dev", "runtime", "corpus"):
        total = (collections.Counter(v["grade"] for v in d[part].values()) for d in (old, new))
        print(f"{part:8} {'(all)':24} " + " -> ".join(str(dict(sorted(t.items()))) for t in total))
        for name in sorted({v["set"] for v in old[part].values()}):
            before = collections.Counter(v["grade"] for v in old[part].values() if v["set"] == name)
            after = collections.Counter(v["grade"] for v in new[part].values() if v["set"] == name)
            if name and (before != after or name.startswith("runtime")):
                print(f"{part:8} {name:24} {dict(sorted(before.items()))} -> {dict(sorted(after.items()))}")
        for key, was in old[part].items():
            now = new[part].get(key)
            if now is not None and now["got"] != was["got"]:
                print(f"  changed {key}: {was['grade']} {was['got']} -> {now['grade']} {now['got']}")
                worse += was["grade"].startswith("right") and now["grade"] == "wrong"
    return 1 if worse else 0


def main() -> int:
    if sys.argv[1:2] == ["--compare"] and len(sys.argv) == 4:
        old, new = (json.loads(Path(p).read_text(encoding="utf-8")) for p in sys.argv[2:4])
        return compare(old, new)
    if len(sys.argv) == 3:
        dump(Path(sys.argv[1]).resolve(), Path(sys.argv[2]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
