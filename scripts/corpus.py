"""The corpus of real reports (corpus/README.md): validate, first-score, score and count it.

    python scripts/corpus.py validate [--dir FOLDER]
    python scripts/corpus.py score [--first] [--batch NAME] [--dir FOLDER]
    python scripts/corpus.py stats [--json]
    python scripts/corpus.py table [--check]
    python scripts/corpus.py add FILE.jsonl --batch NAME
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402
from kb.knowledge.tables import read_frequency, table_path  # noqa: E402
from kb.knowledge.toml_write import toml_value  # noqa: E402

CORPUS = REPO / "corpus"
MAX_ERROR = 6000
MAX_TOTAL_BYTES = 8 * 1024 * 1024
SPECIAL_FAMILIES = ("out-of-scope", "unknown-family")
KEYS = {"id", "url", "source", "repo", "date", "batch", "query", "rank", "error", "title", "versions", "label"}
SOURCES = ("github-issue", "forum", "qa")
BASES = ("thread-resolved", "labeller")
GRADES = ("right", "wrong", "silent")


def batch_files(folder: Path = CORPUS) -> list[Path]:
    """The batch files of ``folder`` (not of its subfolders: corpus/sealed/ holds batches nothing trains on)."""
    return sorted(folder.glob("reports-*.jsonl"))


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


def validate(folder: Path = CORPUS) -> int:
    knowledge = load_knowledge()
    families = {f.key for f in knowledge.families}
    # another folder's (corpus/sealed/) ids must not be in the corpus either
    seen: dict[str, Path] = {r["id"]: p for p in batch_files() for r in read(p)} if folder != CORPUS else {}
    total, bad = 0, 0
    for path in batch_files(folder):
        total += path.stat().st_size
        where = path.relative_to(REPO) if path.is_relative_to(REPO) else path
        for n, record in enumerate(read(path), start=1):
            for p in problems(record, families):
                print(f"{where}:{n}: {record.get('id')}: {p}")
                bad += 1
            if record.get("id") in seen:
                print(f"{where}:{n}: {record['id']} also in {seen[record['id']].name}")
                bad += 1
            seen[record.get("id")] = path
    if total > MAX_TOTAL_BYTES:
        print(f"corpus is {total} bytes (at most {MAX_TOTAL_BYTES})")
        bad += 1
    n = sum(len(read(p)) for p in batch_files(folder))
    print(f"{n} reports in {len(batch_files(folder))} batches, {total} bytes: {bad} problem(s)")
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


def score(first: bool, batch: str | None, folder: Path = CORPUS) -> int:
    knowledge = load_knowledge()
    case_family = {c.key: c.family for c in knowledge.cases}
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    batches = {path: read(path) for path in batch_files(folder)}  # each file read once
    # the re-homing's stale-entry check looks at the corpus's labels, whichever folder is scored
    others = [r for path in batch_files() for r in read(path)] if folder != CORPUS else []
    moves = rehomes(read_frequency("frequency-aliases") or {}, [r for rows in batches.values() for r in rows] + others,
                    {f.key for f in knowledge.families})
    for path, records in batches.items():
        if batch and records and records[0].get("batch") != batch:
            continue
        changed = False
        for record in records:
            got = answer(record, knowledge)
            family = moves.get((record["label"]["family"], record["label"]["cause"]), record["label"]["family"])
            g = grade(family, got, case_family)
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


# --- the frequency table (tables/frequency.toml) ------------------------------------------------------

HEAD_SHARE = 0.7  # issue #24.2: the causes that together hold this share of the counted reports
UNKNOWN_FAMILY = "unknown-family"


class TableError(Exception):
    pass


def rehomes(aliases: dict[str, Any], rows: list[dict], families: set[str]) -> dict[tuple[str, str], str]:
    """``{(family as labelled, cause): family as counted}`` from tables/frequency-aliases.toml's [[rehome]]: causes
    labelled `unknown-family` before kb had a family for them. Checked: the target is one of kb's families and every
    (family, cause) occurs in the corpus (a stale entry fails)."""
    labelled = {(r["label"]["family"], r["label"]["cause"]) for r in rows}
    out: dict[tuple[str, str], str] = {}
    for entry in aliases.get("rehome", []):
        key = (entry.get("family", UNKNOWN_FAMILY), entry["cause"])
        if key in out:
            raise TableError(f"frequency-aliases: rehome {key[1]!r} is given twice")
        if key not in labelled:
            raise TableError(f"frequency-aliases: rehome {key[1]!r} is no {key[0]} cause of the corpus (a stale entry)")
        if entry["to"] not in families:
            raise TableError(f"frequency-aliases: rehome {key[1]!r}: {entry['to']!r} is no family of kb")
        out[key] = entry["to"]
    return out


def rehomed(rows: list[dict], moves: dict[tuple[str, str], str]) -> list[dict]:
    """The records as counted: a re-homed record gets its new family (a copy; the record itself is never edited)."""
    out = []
    for r in rows:
        to = moves.get((r["label"]["family"], r["label"]["cause"]))
        out.append({**r, "label": {**r["label"], "family": to}} if to else r)
    return out


def counted_rows(rows: list[dict], knowledge) -> list[dict]:
    """The records with tables/frequency-aliases.toml's re-homing applied (what score and table grade against)."""
    aliases = read_frequency("frequency-aliases") or {}
    return rehomed(rows, rehomes(aliases, rows, {f.key for f in knowledge.families}))


def cause_names(aliases: dict[str, Any], corpus_causes: set[str]) -> dict[str, str]:
    """``{cause as labelled: cause as counted}`` from tables/frequency-aliases.toml, checked: no chains, no stale alias."""
    out: dict[str, str] = {}
    for entry in aliases.get("alias", []):
        cause, same_as = entry["cause"], entry["same_as"]
        if cause in out:
            raise TableError(f"frequency-aliases: {cause!r} is aliased twice")
        if cause not in corpus_causes:
            raise TableError(f"frequency-aliases: {cause!r} is no cause of the corpus (a stale alias)")
        out[cause] = same_as
    chained = sorted(c for c in out.values() if c in out)
    if chained:
        raise TableError(f"frequency-aliases: {chained[0]!r} is an alias and the target of another (no chains)")
    return out


def triage_entries(judged: dict[str, Any], knowledge) -> dict[tuple[str, str], Any]:
    """``{(family, cause): TriageEntry or None}`` from tables/frequency-triage.toml: the triage entry that names
    the cause, None where none does. Each phrase must name exactly one entry of its family."""
    families = {f.key: f for f in knowledge.families}
    out: dict[tuple[str, str], Any] = {}
    for entry in judged.get("cause", []):
        family, cause, phrase = entry["family"], entry["cause"], entry["triage"]
        where = f"frequency-triage: {family} {cause}"
        if family not in families:
            raise TableError(f"{where}: no family {family!r}")
        if (family, cause) in out:
            raise TableError(f"{where}: judged twice")
        found = [t for t in families[family].triage if phrase and phrase in t.cause]
        if phrase and len(found) != 1:
            raise TableError(f"{where}: {phrase!r} is in {len(found)} triage entries of {family} (it must be in one)")
        out[(family, cause)] = found[0] if found else None
    return out


def _tally(records: list[dict], grades: dict[str, str]) -> dict[str, Any]:
    n = len(records)
    graded = collections.Counter(grades[r["id"]] for r in records)
    return {"with_error": round(sum(1 for r in records if r["error"].strip()) / n, 4) if n else 0.0,
            "right": graded["right"], "silent": graded["silent"], "wrong": graded["wrong"]}


def build_table(rows: list[dict], knowledge) -> dict[str, Any]:
    """The frequency table: per family and per (family, cause) of the in-scope reports whose error shows, how
    many, their share, how many carry error output, and today's kb's grades on them; the head (#24.2) with
    the triage entry that names each of its causes."""
    rows = counted_rows(rows, knowledge)
    aliases = read_frequency("frequency-aliases") or {}
    judged = read_frequency("frequency-triage") or {}
    unshown_causes = set(aliases.get("unshown", {}).get("causes", []))
    names = cause_names(aliases, {r["label"]["cause"] for r in rows})
    named_by = triage_entries(judged, knowledge)
    case_family = {c.key: c.family for c in knowledge.cases}
    cases = {c.slug: c for c in knowledge.cases}
    pages = {f.key for f in knowledge.families}
    grades = {r["id"]: grade(r["label"]["family"], answer(r, knowledge), case_family) for r in rows}

    def cause(r: dict) -> str:
        return names.get(r["label"]["cause"], r["label"]["cause"])

    in_scope = [r for r in rows if r["label"]["family"] != "out-of-scope"]
    out_of_scope = [r for r in rows if r["label"]["family"] == "out-of-scope"]
    unshown = [r for r in in_scope if cause(r) in unshown_causes]
    counted = [r for r in in_scope if cause(r) not in unshown_causes]
    total = len(counted)
    by_family: dict[str, list[dict]] = collections.defaultdict(list)
    unshown_by_family = collections.Counter(r["label"]["family"] for r in unshown)
    by_cause: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    labelled_as: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
    for r in counted:
        key = (r["label"]["family"], cause(r))
        by_family[key[0]].append(r)
        by_cause[key].append(r)
        if r["label"]["cause"] != key[1]:
            labelled_as[key].add(r["label"]["cause"])
    family_order = sorted(set(by_family) | set(unshown_by_family), key=lambda f: (-len(by_family[f]), f))
    families = [{"family": f, "page": f in pages, "reports": len(by_family[f]), "share": round(len(by_family[f]) / total, 4) if total else 0.0,
                 **_tally(by_family[f], grades), "unshown": unshown_by_family[f]} for f in family_order]
    # Larger causes first; among causes of the same size the larger family's first, then by name: the order
    # decides which of the equal causes at the 70% cut fall inside the head.
    order = sorted(by_cause, key=lambda k: (-len(by_cause[k]), -len(by_family[k[0]]), k[0], k[1]))
    causes, cumulative, head_pairs, head_reports = [], 0, 0, 0
    for family, name in order:
        records = by_cause[(family, name)]
        in_head = cumulative < HEAD_SHARE * total
        cumulative += len(records)
        head_pairs += in_head
        head_reports += len(records) if in_head else 0
        row = {"family": family, "cause": name, "reports": len(records), "share": round(len(records) / total, 4),
               "cumulative": round(cumulative / total, 4), **_tally(records, grades), "head": in_head,
               "aliases": sorted(labelled_as[(family, name)]), "triage_judged": (family, name) in named_by}
        entry = named_by.get((family, name))
        case = cases.get(entry.case) if entry is not None and entry.case else None
        row.update(triage=entry.cause if entry is not None else "", triage_case=case.id if case else "",
                   triage_reproduced=bool(case and case.reproductions))
        causes.append(row)
    dates = sorted(r["date"] for r in rows if r["date"])
    corpus = {"reports": len(rows), "batches": len(batch_files()), "oldest_report": dates[0] if dates else "",
              "newest_report": dates[-1] if dates else "", "in_scope": len(in_scope), "out_of_scope": len(out_of_scope),
              "out_of_scope_claimed": sum(1 for r in out_of_scope if grades[r["id"]] == "wrong"),
              "unshown": len(unshown), "counted": total, "unshown_causes": sorted(unshown_causes),
              "head_share": HEAD_SHARE, "head_pairs": head_pairs, "head_reports": head_reports,
              "head_smallest": min((len(by_cause[k]) for k in order[:head_pairs]), default=0)}
    return {"corpus": corpus, "family": families, "cause": causes}


def table_toml(table: dict[str, Any]) -> str:
    lines = ["# What goes wrong most: the corpus of real reports (corpus/) by failure family and cause, with kb's",
             "# answers on them. Generated by `python scripts/corpus.py table`: do not edit; rebuild it after the",
             "# corpus, tables/frequency-aliases.toml, tables/frequency-triage.toml or kb's answers change",
             "# (tests/test_frequency.py fails until then). Shares are of [corpus].counted: the in-scope reports",
             "# whose error the gathered text shows; `unshown` ones are counted apart. right/silent/wrong: kb's",
             "# top answer on each report, graded as `corpus.py score` grades.", ""]
    for section in ("built", "corpus"):
        if section in table:
            lines.append(f"[{section}]")
            lines += [f"{k} = {toml_value(v)}" for k, v in table[section].items()]
            lines.append("")
    for section in ("family", "cause"):
        for row in table[section]:
            lines.append(f"[[{section}]]")
            lines += [f"{k} = {toml_value(v)}" for k, v in row.items()]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    out = [f"[corpus] {k}: {old['corpus'].get(k)!r} -> {v!r}" for k, v in new["corpus"].items()
           if old.get("corpus", {}).get(k) != v]
    for section, key in (("family", ("family",)), ("cause", ("family", "cause"))):
        before = {tuple(r[k] for k in key): r for r in old.get(section, [])}
        after = {tuple(r[k] for k in key): r for r in new[section]}
        out += [f"[[{section}]] {' '.join(k)}: new" for k in after if k not in before]
        out += [f"[[{section}]] {' '.join(k)}: gone" for k in before if k not in after]
        out += [f"[[{section}]] {' '.join(k)}: {f} {before[k].get(f)!r} -> {v!r}"
                for k in after if k in before for f, v in after[k].items() if before[k].get(f) != v]
        if not out and [tuple(r[k] for k in key) for r in old.get(section, [])] != list(after):
            out.append(f"[[{section}]]: the order differs")
    return out


def table(check: bool) -> int:
    """Write tables/frequency.toml (``--check``: compare with the committed one, write nothing)."""
    import tomllib

    rows = [r for path in batch_files() for r in read(path)]
    knowledge = load_knowledge()
    try:
        fresh = build_table(rows, knowledge)
    except TableError as exc:
        print(exc)
        return 1
    path = Path(table_path("frequency"))
    if check:
        old = read_frequency() or {}
        new = tomllib.loads(table_toml(fresh))
        diffs = _differences(old, new)
        for line in diffs[:40]:
            print(line)
        print(f"{path.relative_to(REPO)}: " + (f"{len(diffs)} difference(s): run `python scripts/corpus.py table`"
                                               if diffs else "up to date"))
        return 1 if diffs else 0
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    fresh = {"built": {"date": datetime.date.today().isoformat(), "kb_commit": commit}, **fresh}
    path.write_text(table_toml(fresh), encoding="utf-8")
    c = fresh["corpus"]
    print(f"{path.relative_to(REPO)}: {c['reports']} reports, {c['in_scope']} in scope, {c['unshown']} without a "
          f"visible error, {c['counted']} counted; the head: {c['head_pairs']} (family, cause) pairs hold "
          f"{c['head_reports']} ({c['head_reports'] / max(c['counted'], 1):.1%})")
    for row in fresh["cause"]:
        if row["head"]:
            named = ("no family" if row["family"] == UNKNOWN_FAMILY else "not judged" if not row["triage_judged"]
                     else f"triage{' + ' + row['triage_case'] if row['triage_case'] else ''}" if row["triage"] else "NO TRIAGE")
            print(f"{row['reports']:>4} {row['cumulative']:6.1%}  {row['family']:<20} {row['cause']:<48} "
                  f"right {row['right']}/{row['reports']}  {named}")
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
    folder = {"type": Path, "default": CORPUS, "help": "the batches' folder (default corpus/; e.g. corpus/sealed)"}
    p = sub.add_parser("validate")
    p.add_argument("--dir", **folder)
    p = sub.add_parser("score")
    p.add_argument("--first", action="store_true", help="record first scores where missing (never overwrites)")
    p.add_argument("--batch")
    p.add_argument("--dir", **folder)
    p = sub.add_parser("stats")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("table", help="write tables/frequency.toml (the frequency table, with kb's answers)")
    p.add_argument("--check", action="store_true", help="compare with the committed table; write nothing")
    p = sub.add_parser("add")
    p.add_argument("file", type=Path)
    p.add_argument("--batch", required=True)
    ns = parser.parse_args()
    if ns.command == "validate":
        return validate(ns.dir.resolve())
    if ns.command == "score":
        return score(ns.first, ns.batch, ns.dir.resolve())
    if ns.command == "stats":
        return stats(ns.json)
    if ns.command == "table":
        return table(ns.check)
    return add(ns.file, ns.batch)


if __name__ == "__main__":
    raise SystemExit(main())
