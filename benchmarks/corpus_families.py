"""kb's answers to the corpus's reports of some families, on a split by repository fixed before tuning (issue #24).

Every corpus report (corpus/reports-*.jsonl, labels re-homed as ``scripts/corpus.py score`` does) is answered as
``corpus.py score`` answers it (its error, else its title) and graded: for a report labelled with one of the chosen
families, right (that family or a case of it), wrong (another), silent; for any other report, whether the answer
claims one of the chosen families (a wrong claim: another family's or an out-of-scope report taken for one of
them), and for the out-of-scope reports whether anything claimed them at all.

The split is benchmarks/title_reports.py's: a repository is HELD OUT when the first hex digit of sha1(owner/name,
lower case) is below 6 (about 3 in 8 repositories). Rules are written looking at the other ("tune") repositories'
reports only; the held-out line is the honest one. The learned fallback (tables/fallback-model.json.gz) is trained
on every report, so answers whose basis is family-learned flatter the held-out line: ``--honest`` answers the
held-out reports with a model trained on the tune repositories only.

    python benchmarks/corpus_families.py [--families a,b,...] [--list silent|wrong|right|all] [--honest]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "scripts"))

import corpus as C  # noqa: E402  (scripts/corpus.py)
from title_reports import held_out  # noqa: E402

from kb.diagnose import fallback  # noqa: E402
from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.diagnose.priors import basis  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402

FAMILIES = ("cuda-setup", "package-install", "multi-gpu-launch", "sharding-config", "hang", "host-oom")


def answer(record: dict, knowledge, case_family: dict[str, str]) -> tuple[str | None, str]:
    """The top answer's family (a case's family for a case) and its basis, as corpus.py score answers."""
    text = record["error"] if record["error"].strip() else record["title"]
    answers = diagnose_lines(text.splitlines(keepends=True), knowledge).answers
    if not answers:
        return None, ""
    top = answers[0]
    family = case_family.get(top.match.entry.key) if top.kind == "case" else top.match.entry.key
    return family, basis(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--list", choices=("silent", "wrong", "right", "all"), default=None)
    parser.add_argument("--part", choices=("tune", "held-out", "all"), default="tune",
                        help="which part --list prints (tune by default: the held-out reports are not looked at)")
    parser.add_argument("--honest", action="store_true",
                        help="held-out reports answered by a fallback model trained on the tune repositories only")
    ns = parser.parse_args(argv)
    chosen = set(ns.families.split(","))
    started = time.perf_counter()
    knowledge = load_knowledge()
    case_family = {c.key: c.family for c in knowledge.cases}
    rows = C.counted_rows([r for path in C.batch_files() for r in C.read(path)], knowledge)
    shipped = fallback.load_model()
    honest_model = None
    if ns.honest:
        import fallback_train as T

        reports = T.load_reports(knowledge)
        data, _ = T.train(knowledge, reports=[r for r in reports if not held_out(r.repo)])
        honest_model = fallback.FallbackModel(data)
    tally: dict[str, Counter] = {"tune": Counter(), "held-out": Counter(), "all": Counter()}
    per_family: dict[tuple[str, str], Counter] = {}
    listed = []
    for r in rows:
        part = "held-out" if held_out(r["repo"]) else "tune"
        fallback.use_model(honest_model if honest_model is not None and part == "held-out" else shipped)
        label = r["label"]["family"]
        got, why = answer(r, knowledge, case_family)
        if label in chosen:
            g = "silent" if got is None else ("right" if got == label else "wrong")
            for name in (part, "all"):
                tally[name][g] += 1
                tally[name][f"{g}:{why}"] += 1 if got else 0
                per_family.setdefault((name, label), Counter())[g] += 1
        else:
            g = "claimed-other" if got in chosen else "other"
            for name in (part, "all"):
                tally[name][g] += got in chosen
                if label == "out-of-scope":
                    tally[name]["oos"] += 1
                    tally[name]["oos-claimed"] += got is not None
        if ns.list and (ns.part in ("all", part)) and (label in chosen or g == "claimed-other"):
            if ns.list == "all" or g == ns.list or (ns.list == "wrong" and g == "claimed-other"):
                listed.append((part, label, g, got, why, r))
    fallback.use_model(shipped)
    for name in ("all", "tune", "held-out"):
        c = tally[name]
        n = c["right"] + c["wrong"] + c["silent"]
        bases = ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in sorted(c.items()) if k.startswith("right:") and v)
        print(f"{name:<9} {n:>4} reports of the families: right {c['right']:>3}, wrong {c['wrong']:>2}, silent "
              f"{c['silent']:>3}; other reports claimed for them {c['claimed-other']:>2}; out-of-scope claimed "
              f"(by anything) {c['oos-claimed']} of {c['oos']}; right by basis: {bases}")
    for family in sorted(chosen):
        cells = []
        for name in ("all", "tune", "held-out"):
            c = per_family.get((name, family), Counter())
            cells.append(f"{name} {c['right']}/{c['wrong']}/{c['silent']}")
        print(f"  {family:<18} right/wrong/silent: " + "; ".join(cells))
    for part, label, g, got, why, r in sorted(listed, key=lambda x: (x[0], x[1], x[2], x[5]["id"])):
        text = (r["error"] if r["error"].strip() else "TITLE: " + r["title"]).strip().replace("\n", " | ")
        print(f"--- {part} {label}/{r['label']['cause']} {g} {got or '-'} {why} {r['id']}\n    {text[-400:]}")
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
