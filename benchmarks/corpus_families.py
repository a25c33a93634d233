"""Today's kb on the corpus's reports of some families, with a held-out split by repository (issue #24).

    python benchmarks/corpus_families.py FAMILY [FAMILY ...] [--misses] [--split tune|held|all]

For the named families: right / wrong / silent over the counted reports (in scope, error shown: what
tables/frequency.toml counts), over all reports labelled with them, and split by repository into a tuning part and
a held-out part (sha1 of the repo name, 1 in 3 held out): tune evidence on the tuning part only, and read the
held-out figure as the honest one. Also the out-of-scope reports kb claims (a wrong answer), on the whole corpus.
``--misses`` lists each silent or wrong report of the chosen part: its answer, title and the error's last lines.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO))

import corpus  # noqa: E402  (scripts/corpus.py)

from kb.knowledge.registry import load_knowledge  # noqa: E402
from kb.knowledge.tables import read_frequency  # noqa: E402

HELD_OUT = 3  # one repository in HELD_OUT is held out


def held_out(repo: str) -> bool:
    """The repository's reports are held out (never tuned on): a third of the repositories, fixed by their name."""
    return int(hashlib.sha1(repo.encode("utf-8")).hexdigest(), 16) % HELD_OUT == 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("families", nargs="+")
    parser.add_argument("--misses", action="store_true", help="list the silent and wrong reports")
    parser.add_argument("--split", choices=("tune", "held", "all"), default="tune", help="which part --misses lists")
    ns = parser.parse_args()
    knowledge = load_knowledge()
    case_family = {c.key: c.family for c in knowledge.cases}
    rows = corpus.counted_rows([r for p in corpus.batch_files() for r in corpus.read(p)], knowledge)
    unshown = set((read_frequency("frequency-aliases") or {}).get("unshown", {}).get("causes", []))
    wanted = set(ns.families)
    tally: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    misses = []
    claimed = []
    for r in rows:
        family = r["label"]["family"]
        if family != "out-of-scope" and family not in wanted:
            continue
        got = corpus.answer(r, knowledge)
        g = corpus.grade(family, got, case_family)
        if family == "out-of-scope":
            if g == "wrong":
                claimed.append((r["id"], got))
            continue
        part = "held" if held_out(r["repo"]) else "tune"
        counted = r["label"]["cause"] not in unshown
        for key in (f"all {family}", f"all {part}", "all"):
            tally[key][g] += 1
        if counted:
            for key in (family, f"{family} {part}", part, "counted"):
                tally[key][g] += 1
        if g != "right" and (ns.split == "all" or ns.split == part):
            misses.append((family, g, got, r, counted))
    print(f"families: {' '.join(sorted(wanted))}; held out: sha1(repo) % {HELD_OUT} == 0")
    order = ["counted", "tune", "held"] + [k for f in sorted(wanted) for k in (f, f"{f} tune", f"{f} held")] + ["all", "all tune", "all held"]
    for key in order:
        c = tally[key]
        n = sum(c.values())
        print(f"{key:<34} {n:>4}: right {c['right']:>4}  wrong {c['wrong']:>3}  silent {c['silent']:>4}")
    print(f"out-of-scope claimed (whole corpus): {len(claimed)}")
    for rid, got in claimed:
        print(f"  {rid} -> {got}")
    if ns.misses:
        for family, g, got, r, counted in sorted(misses, key=lambda m: (m[0], m[3]["label"]["cause"])):
            print("=" * 100)
            print(f"{family} / {r['label']['cause']} [{g}{'' if counted else ', unshown'}] -> {got}  {r['id']}")
            print(f"title: {r['title']}")
            tail = [line for line in r["error"].strip().splitlines() if line.strip()][-14:]
            for line in tail:
                print(f"    {line[:220]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
