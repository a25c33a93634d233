"""Score `kb diagnose` on the dev set of real error outputs (tests/fixtures/diagnose/manifest.toml).

Each entry is labelled with the case it should name (``expect``, or "none") and its failure family
(``family``, or "none" for errors of no known kind and software outside the stack). The top answer is:

- right: the labelled case; or, when no case is labelled, the labelled family's answer; or silence
  for an entry of no family. A family answer for an entry labelled with a case of that family is
  counted right *at family level* and shown apart ("the text cannot tell" is the label's to say);
- wrong: another case or family, or any answer for an entry of no family;
- silent: no answer for an entry that has a family.

Entries whose case folder does not exist yet are skipped.

    python benchmarks/diagnose_devset.py            # summary, by batch, and every miss
    python benchmarks/diagnose_devset.py --verbose  # every entry
    python benchmarks/diagnose_devset.py --json     # machine-readable
    python benchmarks/diagnose_devset.py --set heldout-3   # one batch
    python benchmarks/diagnose_devset.py --answers FILE    # score answers computed elsewhere
                                                           # (JSON {file: [kind, key] or null})
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.knowledge.examples import load_examples, pending_sets  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402

MANIFEST = REPO / "tests" / "fixtures" / "diagnose" / "manifest.toml"


def top_answers(entries: list[dict], manifest: Path) -> dict[str, tuple[str, str] | None]:
    """The top answer (kind, case slug or family name) of today's kb for every entry."""
    knowledge = load_knowledge()
    out: dict[str, tuple[str, str] | None] = {}
    for entry in entries:
        with open(manifest.parent / entry["file"], encoding="utf-8", errors="replace") as handle:
            answers = diagnose_lines(handle, knowledge).answers
        out[entry["file"]] = (answers[0].kind, answers[0].match.entry.slug) if answers else None
    return out


def grade(expect: str, family: str, top: tuple[str, str] | None, case_family: dict[str, str]) -> str:
    """right | right-family | wrong | silent (see the module's docstring)."""
    if top is None:
        return "silent" if family != "none" else "right"
    kind, key = top
    if expect != "none":
        if kind == "case" and key == expect:
            return "right"
        if kind == "family" and key == case_family.get(expect, family):
            return "right-family"
        return "wrong"
    if family != "none" and kind == "family" and key == family:
        return "right"
    return "wrong"


def evaluate(manifest: Path = MANIFEST, subset: str | None = None, answers: dict | None = None) -> dict:
    entries = load_examples(manifest)
    if subset:
        entries = [e for e in entries if e.get("set") == subset]
    else:  # a set whose first score is pending is diagnosed only when named (its first score)
        pending = pending_sets(manifest)
        entries = [e for e in entries if e.get("set") not in pending]
    knowledge = load_knowledge()
    case_family = {c.slug: c.family for c in knowledge.cases}
    tops = answers if answers is not None else top_answers(entries, manifest)
    rows = []
    for entry in entries:
        expect = entry["expect"]
        family = entry.get("family") or case_family.get(expect, "none")
        top = tops.get(entry["file"])
        top = tuple(top) if top else None
        status = "skipped" if expect != "none" and expect not in case_family else grade(expect, family, top, case_family)
        rows.append({"file": entry["file"], "source": entry["source"], "expect": expect, "family": family,
                     "got": list(top) if top else None, "status": status, "set": entry.get("set", "dev"),
                     "error_text": entry.get("error_text", True)})
    return {"entries": len(rows), "rows": rows, **counts(rows)}


def counts(rows: list[dict]) -> dict:
    scored = [r for r in rows if r["status"] != "skipped"]
    right = sum(r["status"] in ("right", "right-family") for r in scored)
    return {
        "scored": len(scored),
        "right": right,
        "right_at_family_level": sum(r["status"] == "right-family" for r in scored),
        "wrong": sum(r["status"] == "wrong" for r in scored),
        "silent": sum(r["status"] == "silent" for r in scored),
        "skipped": len(rows) - len(scored),
    }


def line(name: str, c: dict) -> str:
    n = c["scored"] or 1
    return (f"{name:<12} {c['scored']:>4} scored: right {c['right']:>3} ({c['right'] / n:.0%}; "
            f"{c['right_at_family_level']} of them at family level), wrong {c['wrong']:>3} ({c['wrong'] / n:.0%}), "
            f"silent {c['silent']:>3} ({c['silent'] / n:.0%})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--set", dest="subset", help="only entries of this set (e.g. heldout-3)")
    parser.add_argument("--answers", type=Path, help="score these answers instead of running kb")
    ns = parser.parse_args()
    answers = json.loads(ns.answers.read_text()) if ns.answers else None
    result = evaluate(subset=ns.subset, answers=answers)
    if ns.json:
        print(json.dumps(result, indent=2))
        return 0
    for r in result["rows"]:
        if ns.verbose or r["status"] not in ("right", "right-family", "skipped"):
            got = " ".join(r["got"]) if r["got"] else "no answer"
            print(f"{r['status']:<12} {r['file']:<52} expect {r['expect']} / {r['family']:<20} got {got}")
    print()
    print(line("all", result))
    for name in sorted({r["set"] for r in result["rows"]}):
        print(line(name, counts([r for r in result["rows"] if r["set"] == name])))
    with_text = [r for r in result["rows"] if r["error_text"]]
    print(line("error text", counts(with_text)) + "  (entries that hold error text, not prose only)")
    if result["skipped"]:
        print(f"skipped (case missing): {result['skipped']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
