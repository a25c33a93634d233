"""kb's answers to the corpus's title-only reports (a title, no error output), by family, on a split by repository
fixed before any tuning (issue #24, item 3: "stuck at 0%", "loss is nan", "OOM with 7B on 2xT4").

A report is title-only when its ``error`` is empty: scripts/corpus.py answers it from its ``title``. Its label is
re-homed as ``corpus.py score`` does (tables/frequency-aliases.toml). Counts:

- known family (labelled with one of kb's families): right (that family, or a case of it), wrong (another), silent;
- out-of-scope (another program's failure, a question): claimed (any answer: wrong) or left alone;
- unknown-family (a stack failure kb has no family for, or a title that shows none): claimed (wrong) or not.

The split: a repository is HELD OUT when the first hex digit of sha1(owner/name, lower case) is below 6 (about
3 in 8 repositories), fixed before the title rules and the fallback's title threshold were tuned; the rules were
written looking at the other repositories' titles only. Each line gives both parts and all.

``--error-titles``: the titles of the reports that show an error, each answered as if it came alone (more titles
to judge the rules' precision by; the shipped model has learnt these titles, so its answers there flatter).

``--learned``: the learned fallback's held-out answers (cross-validation by repository) on title-only reports at
other thresholds: whether a threshold of its own for titles would answer more of them.

``--honest``: the learned fallback answers the held-out repositories' titles with a model trained (and its
thresholds chosen by cross-validation) on the other repositories' reports only (scripts/fallback_train.py's
``train`` on that subset); without it, the shipped model (trained on every report) answers, which flatters.

    python benchmarks/title_reports.py [--honest] [--learned] [--list] [--error-titles]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from kb.diagnose import fallback  # noqa: E402
from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.diagnose.priors import basis  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402

SPECIAL = ("out-of-scope", "unknown-family")


import fallback_train as T  # noqa: E402  (scripts/, on the path above)


def held_out(repo: str) -> bool:
    """The split fixed before tuning: about 3 in 8 repositories, by a hash of the name."""
    return hashlib.sha1(repo.lower().encode()).hexdigest()[0] in "012345"


def answer(title: str, knowledge) -> tuple[str | None, str]:
    """kb's top family for a title alone (a case's family for a case), and what the answer rests on."""
    answers = diagnose_lines(title.splitlines(keepends=True), knowledge).answers
    if not answers:
        return None, ""
    return answers[0].family, basis(answers[0])


def grade(label: str, got: str | None) -> str:
    if label in SPECIAL:
        return f"{label}:{'claimed' if got else 'alone'}"
    return "silent" if got is None else ("right" if got == label else "wrong")


def counts_line(name: str, c: Counter) -> str:
    known = c["right"] + c["wrong"] + c["silent"]
    oos = c["out-of-scope:claimed"] + c["out-of-scope:alone"]
    unk = c["unknown-family:claimed"] + c["unknown-family:alone"]
    k = known or 1
    return (f"{name:<10} known family {known:>4}: right {c['right']:>3} ({c['right'] / k:.1%}), wrong {c['wrong']:>2} "
            f"({c['wrong'] / k:.1%}), silent {c['silent']:>3}; out-of-scope claimed {c['out-of-scope:claimed']:>2} of "
            f"{oos} ({c['out-of-scope:claimed'] / (oos or 1):.1%}); unknown-family claimed "
            f"{c['unknown-family:claimed']:>2} of {unk} ({c['unknown-family:claimed'] / (unk or 1):.1%})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--honest", action="store_true", help="held-out titles answered by a model not trained on them")
    parser.add_argument("--list", action="store_true", help="print every answered or wrong title")
    parser.add_argument("--learned", action="store_true",
                        help="the learned fallback's held-out right/wrong on title-only reports at other thresholds")
    parser.add_argument("--error-titles", action="store_true",
                        help="score the titles of the reports that show an error instead, each as if it came alone")
    ns = parser.parse_args(argv)
    started = time.perf_counter()
    knowledge = load_knowledge()
    records = T.corpus_records()
    titles = [r for r in records if not r["error"].strip()]
    if ns.error_titles:  # more titles to judge a rule's precision by (their reports' errors are not read)
        titles = [r for r in records if r["error"].strip() and (r.get("title") or "").strip()]
    shipped = fallback.load_model()
    honest_model = None
    if ns.honest:
        reports = T.load_reports(knowledge)
        tune = [r for r in reports if not held_out(r.repo)]
        data, _ = T.train(knowledge, reports=tune)
        honest_model = fallback.FallbackModel(data)
        print(f"honest model (tune repositories only): {T.model_summary(data)}")
    tallies: dict[str, Counter] = {"tune": Counter(), "held-out": Counter(), "all": Counter()}
    by_basis: dict[str, Counter] = {"tune": Counter(), "held-out": Counter()}
    rows = []
    for r in titles:
        part = "held-out" if held_out(r["repo"]) else "tune"
        fallback.use_model(honest_model if honest_model is not None and part == "held-out" else shipped)
        got, why = answer(r["title"], knowledge)
        g = grade(r["label"]["family"], got)
        for name in (part, "all"):
            tallies[name][g] += 1
        if got:
            by_basis[part][f"{why}:{g}"] += 1
        rows.append((part, g, got, why, r))
    fallback.use_model(shipped)
    print(f"{'titles of reports with an error' if ns.error_titles else 'title-only corpus reports'}: {len(titles)} from {len({r['repo'] for r in titles})} repositories; held out: "
          f"{sum(held_out(r['repo']) for r in titles)} from {len({r['repo'] for r in titles if held_out(r['repo'])})}")
    for name, c in tallies.items():
        print(counts_line(name, c))
    for name, c in by_basis.items():
        print(f"answers by basis ({name}): " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    if ns.list:
        for part, g, got, why, r in sorted(rows, key=lambda x: (x[0], x[1], x[4]["label"]["family"])):
            if got or g == "wrong":
                print(f"  {part:<8} {g:<22} {got or '-':<20} {why:<15} {r['label']['family']}/{r['label']['cause']}: "
                      f"{r['title'][:100]}")
    if ns.learned:
        learned_curve(knowledge, {r["id"] for r in titles})
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


def learned_curve(knowledge, title_ids: set[str]) -> None:
    """Would a threshold of its own for titles let the learned fallback answer more of them? Its held-out answers
    (scripts/fallback_train.py's cross-validation by repository, 5 folds) on the title-only reports it is asked
    about, at the calibration the trainer chooses and other thresholds: right/wrong; out-of-scope claimed."""
    reports = T.load_reports(knowledge)
    held = T.cross_validate(reports)
    best, _ = T.choose(held)
    calibration = (best["scale"], best["none_bias"])
    titled = [h for h in held if h.report.id in title_ids]
    print(f"learned fallback, held out by repository: threshold {best['threshold']}, least similarity "
          f"{best['min_similarity']}; title-only reports asked: {len(titled)}")
    for similarity in sorted({0.0, best["min_similarity"]}):
        cells = []
        for threshold in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
            c = T.tally(titled, calibration, threshold, similarity)
            cells.append(f"{threshold:.1f}: {c['right']}/{c['wrong']}; {c['out_of_scope_claimed']}")
        print(f"  least similarity {similarity}: " + "  ".join(cells))


if __name__ == "__main__":
    raise SystemExit(main())
