"""Evaluate the learned fallback (kb/diagnose/fallback.py) by cross-validation grouped by repository.

Every labelled report (corpus/ and the dev set) is parsed once with the fallback off; the ones no signature or
prior answers are the ones the fallback is asked about. Repositories are split into folds (a repository's
reports are all held out together); each fold is answered by a model trained on the other folds. Counts on
the held-out reports the fallback is asked about: right (the labelled family), wrong (another family, or any
family for a report labelled out-of-scope or unknown-family), silent (no answer, the report has a family),
quiet (no answer, the report has none: that is right).

1. the settings the trainer chooses on this cross-validation (k, least similarity, vote share), and the
   held-out counts there: the threshold is set so wrong <= 2% of the reports asked;
2. nested: each outer fold's settings chosen by an inner cross-validation on the other folds alone, so the
   held-out counts do not benefit from choosing the settings on them;
3. end to end on the corpus (scripts/corpus.py's grades) and the dev set (benchmarks/diagnose_devset.py's):
   without the fallback; with each report answered by the model of its held-out fold; with the shipped model
   (trained on every report, so it has seen them: an upper bound); and the dev set answered by a model trained
   on the corpus alone (dev-set reports and their corpus copies left out), to show it does not just remember.

    python benchmarks/fallback_cv.py > benchmarks/results/fallback-cv.txt
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose import fallback  # noqa: E402
from kb.diagnose import fallback_train as T  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402
from kb.knowledge.tables import read_fallback_model  # noqa: E402


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


corpus_script = _module(REPO / "scripts" / "corpus.py", "corpus_script")
devset_script = _module(REPO / "benchmarks" / "diagnose_devset.py", "devset_script")


LOOSER = [{"k": 1, "threshold": 0.5, "min_similarity": 0.0, "none_weight": 1.0},
          {"k": 3, "threshold": 0.5, "min_similarity": 0.0, "none_weight": 1.0},
          {"k": 3, "threshold": 0.5, "min_similarity": 0.5, "none_weight": 1.0},
          {"k": 5, "threshold": 0.5, "min_similarity": 0.3, "none_weight": 3.0}]


def describe(s: dict, short: bool = False) -> str:
    if short:
        return f"k={s['k']} share>={s['threshold']} sim>={s['min_similarity']} none x{s['none_weight']:g}"
    return (f"k={s['k']} nearest reports vote; a family answers with >= {s['threshold']} of the vote (a none vote "
            f"counts x{s['none_weight']:g}) and its nearest report at similarity >= {s['min_similarity']}")


def line(name: str, c: dict) -> str:
    asked = c["asked"] or 1
    answered = c["right"] + c["wrong"]
    return (f"{name:<34} asked {c['asked']:>4}: right {c['right']:>3}, wrong {c['wrong']:>3} "
            f"({c['wrong'] / asked:.1%} of asked), silent {c['silent']:>3}, quiet {c['quiet']:>3}; "
            f"precision of answers {c['right'] / answered if answered else 0:.0%}")


def counts(pairs: list[tuple[str | None, str]]) -> dict:
    """(answer or None, label) pairs -> right / wrong / silent / quiet."""
    c = {"asked": len(pairs), "right": 0, "wrong": 0, "silent": 0, "quiet": 0}
    for got, truth in pairs:
        key = ("right" if got == truth else "wrong") if got else ("silent" if truth != T.NONE else "quiet")
        c[key] += 1
    return c


def nested(reports: list[T.Report], held: list[T.HeldOut]) -> tuple[dict, list[dict]]:
    """Held-out counts where each outer fold's settings come from a cross-validation of the other folds only."""
    fold_of = T.folds_by_repo(reports)
    pairs, chosen = [], []
    for f in range(T.FOLDS):
        inner = [r for r in reports if fold_of[r.repo] != f]
        best, _ = T.choose(T.cross_validate(inner, T.FOLDS - 1))
        chosen.append({"fold": f, **T.settings_of(best)})
        for h in held:
            if fold_of[h.report.repo] == f:
                got, _ = T.decide(h.neighbours, T.settings_of(best))
                pairs.append((got, h.report.label))
    return counts(pairs), chosen


def corpus_grades(knowledge, override: dict[str, str | None] | None = None) -> Counter:
    """scripts/corpus.py score's grades for the whole corpus, with today's kb (and the fallback in use), or
    with ``override`` answers (report id -> "family:X" or None) for the reports it names."""
    case_family = {c.key: c.family for c in knowledge.cases}
    tally: Counter = Counter()
    for record in T.corpus_records():
        got = override[record["id"]] if override and record["id"] in override else corpus_script.answer(record, knowledge)
        tally[corpus_script.grade(record["label"]["family"], got, case_family)] += 1
    return tally


def devset_counts(answers: dict | None = None) -> dict:
    result = devset_script.evaluate(answers=answers)
    return {k: result[k] for k in ("scored", "right", "right_at_family_level", "wrong", "silent")}


def grades_line(name: str, c: Counter) -> str:
    n = sum(c.values()) or 1
    return (f"{name:<44} {n:>4}: right {c['right']:>4} ({c['right'] / n:.1%}), wrong {c['wrong']:>3} "
            f"({c['wrong'] / n:.1%}), silent {c['silent']:>4} ({c['silent'] / n:.1%})")


def dev_line(name: str, c: dict) -> str:
    return (f"{name:<44} {c['scored']:>4}: right {c['right']:>4} ({c['right_at_family_level']} at family level), "
            f"wrong {c['wrong']:>3}, silent {c['silent']:>3}")


def main() -> int:
    started = time.perf_counter()
    knowledge = load_knowledge()
    reports = T.load_reports(knowledge)
    trained = [r for r in reports if r.train]
    asked = [r for r in reports if r.prior is None]
    print(f"reports: {len(reports)} ({Counter(r.origin for r in reports)}); training: {len(trained)} "
          f"({Counter(r.label != T.NONE for r in trained)[True]} with a family, "
          f"{Counter(r.label != T.NONE for r in trained)[False]} none); left out of training (no error shown): "
          f"{len(reports) - len(trained)}")
    print(f"repositories: {len({r.repo for r in reports})}, in {T.FOLDS} folds; asked (no signature, no prior): "
          f"{len(asked)}, of which with a family: {sum(r.label != T.NONE for r in asked)}")
    print()

    held = T.cross_validate(reports)
    best, tried = T.choose(held)
    chosen_settings = T.settings_of(best)
    print("1. held out by repository, settings chosen on this cross-validation (the shipped model's)")
    print(f"   {describe(chosen_settings)}")
    print("   " + line("all reports asked", best))
    for origin in ("corpus", "dev"):
        part = [h for h in held if h.report.origin == origin]
        print("   " + line(f"  of them from the {origin}", T.tally(part, chosen_settings)))
    print("   calibration (held-out answers by vote share):",
          ", ".join(f"share >= {r['from']}: {r['right']} of {r['answered']} right"
                    for r in T.calibration(held, chosen_settings)))
    print("   other settings, for comparison (the most right answers within the 2% wrong budget; looser ones):")
    allowed = [t for t in tried if t["wrong"] <= T.MAX_WRONG * t["asked"]]
    most_right = max(allowed, key=lambda t: (t["right"], -t["wrong"]))
    for t in [most_right, *[t for t in tried if T.settings_of(t) in LOOSER]]:
        print("   " + line(f"  {describe(T.settings_of(t), short=True)}", t))
    print("   held-out answers (report, answer, label, share):")
    for h in held:
        got, share = T.decide(h.neighbours, chosen_settings)
        if got:
            print(f"     {'right' if got == h.report.label else 'WRONG':<5} {h.report.url:<72} {got:<20} "
                  f"label {h.report.label:<20} {share:.2f}")
    print()

    n_counts, chosen = nested(reports, held)
    print("2. nested: each fold's settings chosen without it")
    print("   " + line("all reports asked", n_counts))
    print("   settings per fold: " + "; ".join(f"{c['fold']}: {describe(c, short=True)}" for c in chosen))
    print()

    print("3. end to end")
    fallback.use_model(None)
    before_corpus, before_dev = corpus_grades(knowledge), devset_counts()
    cv_answer = {h.report.id: T.decide(h.neighbours, chosen_settings)[0] for h in held}
    cv_corpus = corpus_grades(knowledge, {i: (f"family:{g}" if g else None) for i, g in cv_answer.items()
                                          if not i.startswith("dev:")})
    dev_tops = devset_script.top_answers(devset_script.load_examples(devset_script.MANIFEST), devset_script.MANIFEST)
    for i, g in cv_answer.items():
        if i.startswith("dev:") and g:
            dev_tops[i[len("dev:"):]] = ("family", g)
    cv_dev = devset_counts(dev_tops)
    shipped = fallback.FallbackModel(read_fallback_model())
    fallback.use_model(shipped)
    after_corpus, after_dev = corpus_grades(knowledge), devset_counts()
    dev_urls = {r.url.rstrip("/") for r in reports if r.origin == "dev"}
    corpus_only = [r for r in reports if r.origin == "corpus" and r.url.rstrip("/") not in dev_urls]
    data, held_c = T.train(knowledge, reports=corpus_only)
    fallback.use_model(fallback.FallbackModel(data))
    no_dev = devset_counts()
    fallback.use_model(None)
    print("   scripts/corpus.py score (all 810; out-of-scope silent counts right):")
    print("   " + grades_line("without the fallback", before_corpus))
    print("   " + grades_line("fallback, each repository held out (CV)", cv_corpus))
    print("   " + grades_line("shipped model (trained on these reports)", after_corpus))
    print("   benchmarks/diagnose_devset.py:")
    print("   " + dev_line("without the fallback", before_dev))
    print("   " + dev_line("fallback, each repository held out (CV)", cv_dev))
    print("   " + dev_line("shipped model (trained on the dev set too)", after_dev))
    print("   " + dev_line("model trained on the corpus only", no_dev))
    print(f"     (corpus-only model: {len(corpus_only)} corpus reports; the dev set and the "
          f"{sum(r.origin == 'corpus' for r in reports) - len(corpus_only)} corpus copies of dev-set reports left out; {describe(data, short=True)}; its own CV: {data['held_out']})")
    print()
    print(f"shipped model: {T.model_summary(read_fallback_model())}")
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
