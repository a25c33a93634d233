"""Evaluate the learned fallback (kb/diagnose/fallback.py, trained by scripts/fallback_train.py) by
cross-validation grouped by repository.

Every labelled report (corpus/ and the dev set) is parsed once with the fallback off; the ones no signature or
prior answers are the ones the fallback is asked about. Repositories are split into folds (a repository's
reports are all held out together); each fold is answered by a model trained on the other folds, through the
run-time code (the pruned weights, the stdlib softmax). Counts on the held-out reports asked: right (the
labelled family), wrong (another family, or any family for a report labelled out-of-scope or unknown-family),
silent (no answer, the report has a family), quiet (no answer, the report has none: that is right); and the
out-of-scope reports asked, and how many were claimed.

1. the calibration (softmax scale, none bias), threshold and least similarity the trainer chooses (the shipped
   model's rule, fallback_train.choose_repeated: the held-out scores of REPEATS fold assignments pooled, a wrong
   answer counted WRONG_COST times a right one), its held-out counts (the mean over the assignments, and each), and
   what other thresholds would give; the counts apart for reports in which kb's parse found an error and
   title/prose-only ones, by label, and each kind's ceiling (the most right answers any threshold gives at a number
   of wrong ones: what answering more would cost); the per-report lists are the first assignment's;
2. cross-chosen: each fold's setting (of each assignment) chosen by the same pooled rule on the held-out scores of
   the other folds' repositories alone (every assignment's), so the held-out counts do not benefit from choosing
   the setting on the reports scored (the scores are held out already: this holds out the choice too);
3. end to end on the corpus (scripts/corpus.py's grades) and the dev set (benchmarks/diagnose_devset.py's):
   without the fallback; with each report answered by the model of its held-out fold; with the shipped model
   (trained on every report, so it has seen them: an upper bound); and the dev set answered by a model trained
   on the corpus alone (dev-set reports and their corpus copies left out), to show it does not just remember;
4. title words: what kb and the model say to title-only reports that name a failure in words, and the corpus's
   title-only reports with those words, by label.

    python benchmarks/fallback_cv.py > benchmarks/results/fallback-cv.txt

The nearest-neighbour model this replaced was measured by the previous version of this script:
benchmarks/results/fallback-cv-knn.txt.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose import fallback  # noqa: E402
from kb.diagnose.diagnosis import diagnose_lines  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402
from kb.knowledge.tables import read_fallback_model  # noqa: E402


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


T = _module(REPO / "scripts" / "fallback_train.py", "fallback_train")
corpus_script = _module(REPO / "scripts" / "corpus.py", "corpus_script")
devset_script = _module(REPO / "benchmarks" / "diagnose_devset.py", "devset_script")

# Title-only reports that name a failure in words (issue 24, item 3), and the words searched for in the corpus.
TITLE_PHRASES = ("stuck at 0%", "loss is nan", "OOM with 7B on 2×T4", "training hangs after the first step",
                 "process killed during training", "training is very slow", "loss becomes nan after a few steps",
                 "CUDA out of memory when fine-tuning llama 7b")
TITLE_WORDS = {"nan": r"\bnan\b", "stuck/hang/freeze": r"\b(?:stuck|hangs?|hanging|hung|freez\w*)\b",
               "oom/out of memory": r"\b(?:oom|out of memory)\b", "killed": r"\bkilled\b", "slow": r"\bslow\w*"}


LOOSER_SCALES = (2.0, 3.0, 4.0, 6.0)
LOOSER_BIASES = (0.0, 0.25, 0.5)


def line(name: str, c: dict) -> str:
    asked = c["asked"] or 1
    answered = c["right"] + c["wrong"]
    return (f"{name:<36} asked {c['asked']:>4}: right {c['right']:>3}, wrong {c['wrong']:>3} "
            f"({c['wrong'] / asked:.1%} of asked), silent {c['silent']:>3}, quiet {c['quiet']:>3}; "
            f"out-of-scope claimed {c['out_of_scope_claimed']} of {c['out_of_scope']}; "
            f"precision {c['right'] / answered if answered else 0:.0%}")


def describe(best: dict) -> str:
    return (f"scale {best['scale']}, none bias {best['none_bias']}, threshold {best['threshold']}, least similarity "
            f"{best.get('min_similarity', 0.0)}")


def rule(best: dict) -> tuple:
    """tally's and answer's arguments after the held-out reports: (scale, none bias), threshold, least similarity."""
    return (best["scale"], best["none_bias"]), best["threshold"], best.get("min_similarity", 0.0)


SEGMENT_NAMES = {True: "with an error", False: "title/prose alone"}
CURVE_WRONG = (0, 1, 2, 3, 5, 10, 20, 40)


def mean_tally(helds: list, chosen: tuple, keep=lambda h: True) -> dict:
    """T.tally of each assignment's held-out reports (those ``keep`` keeps), as the mean over the assignments."""
    per = [T.tally([h for h in held if keep(h)], *chosen) for held in helds]
    return {k: round(sum(c[k] for c in per) / len(per), 1) for k in per[0]}


def segment_study(helds: list, chosen: tuple) -> None:
    """Coverage and precision apart for reports with an error and title/prose-only ones, by labelled family (scope),
    at the chosen rule (the mean over the assignments); and each segment's ceiling (fallback_train.ceiling: what
    answering more would cost; the mean over the assignments)."""
    n = len(helds)
    for with_error in (True, False):
        print("   " + line(f"  {SEGMENT_NAMES[with_error]}",
                           mean_tally(helds, chosen, lambda h: h.report.with_error == with_error)))
        by: dict = {}
        for held in helds:
            for h in held:
                if h.report.with_error != with_error:
                    continue
                got = T.answer(h, *chosen)
                truth = h.report.label
                key = ("right" if got == truth else "wrong") if got else ("silent" if truth != T.NONE else "quiet")
                by.setdefault(h.report.scope, Counter())[key] += 1
        print("     by label (asked: right/wrong): " + ", ".join(
            f"{scope} {sum(c.values()) / n:g}: {c['right'] / n:g}/{c['wrong'] / n:g}"
            for scope, c in sorted(by.items(), key=lambda x: (-sum(x[1].values()), x[0]))))
        tops = [T.ceiling(held, chosen[0][0], with_error, CURVE_WRONG) for held in helds]
        print("     ceiling (most right at n wrong, any threshold and none bias: optimistic): " + ", ".join(
            f"{w}: {sum(t[w] for t in tops) / n:g}" for w in CURVE_WRONG))


def cross_chosen(reports: list, helds: list) -> tuple[dict, list[dict]]:
    """Held-out counts (the mean over the assignments) where the setting that answers each fold of each assignment
    is chosen by the trainer's pooled rule on the held-out scores of the other folds' repositories alone (of every
    assignment): the choice is held out as the scores are. Also the settings chosen for the first assignment."""
    total: Counter = Counter()
    chosen = []
    for seed, held in enumerate(helds):
        fold_of = T.folds_by_repo(reports, T.FOLDS, seed)
        for f in range(T.FOLDS):
            best, _ = T.choose_repeated([[h for h in other if fold_of[h.report.repo] != f] for other in helds])
            if seed == 0:
                chosen.append({"fold": f, **best})
            total.update(T.tally([h for h in held if fold_of[h.report.repo] == f], *rule(best)))
    return {k: round(v / len(helds), 1) for k, v in total.items()}, chosen


def corpus_grades(knowledge, override: dict | None = None) -> Counter:
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
    return (f"{name:<46} {n:>4}: right {c['right']:>4} ({c['right'] / n:.1%}), wrong {c['wrong']:>3} "
            f"({c['wrong'] / n:.1%}), silent {c['silent']:>4} ({c['silent'] / n:.1%})")


def dev_line(name: str, c: dict) -> str:
    return (f"{name:<46} {c['scored']:>4}: right {c['right']:>4} ({c['right_at_family_level']} at family level), "
            f"wrong {c['wrong']:>3}, silent {c['silent']:>3}")


def top_of(text: str, knowledge) -> str:
    answers = diagnose_lines(text.splitlines(keepends=True), knowledge).answers
    if not answers:
        return "silent"
    top = answers[0]
    return f"{top.kind} {top.match.entry.key} ({getattr(top.match, 'basis', 'signature')})"


def main() -> int:
    started = time.perf_counter()
    knowledge = load_knowledge()
    reports = T.load_reports(knowledge)
    trained = [r for r in reports if r.train]
    asked = [r for r in reports if r.prior is None]
    print(f"reports: {len(reports)} ({dict(Counter(r.origin for r in reports))}); training: {len(trained)} "
          f"({sum(r.label != T.NONE for r in trained)} with a family, {sum(r.label == T.NONE for r in trained)} none; "
          f"plus {sum(bool(r.title_document.strip()) for r in trained)} titles of reports with an error); "
          f"left out of training (no error shown): {len(reports) - len(trained)}")
    print(f"repositories: {len({r.repo for r in reports})}, in {T.FOLDS} folds; asked (no signature, no prior): "
          f"{len(asked)}, of which with a family: {sum(r.label != T.NONE for r in asked)}, out-of-scope: "
          f"{sum(r.scope == T.OUT_OF_SCOPE for r in asked)}")
    print()

    priors = knowledge.tables.get("priors")
    helds = [T.cross_validate(reports, priors=priors, seed=seed) for seed in range(T.REPEATS)]
    held = helds[0]  # the per-report lists and the calibration bins: the first assignment's (as the trainer's)
    best, per = T.choose_repeated(helds)
    _, tried = T.choose([h for held_ in helds for h in held_])
    chosen_rule = rule(best)
    n = len(helds)
    print(f"1. held out by repository; the trainer's rule: {n} fold assignments pooled, wrong counted "
          f"{T.WRONG_COST:g}x (the shipped model's); counts: the mean over the assignments")
    print(f"   linear SVM (C={T.C}) over {T.KEEP_TERMS} terms; {describe(best)}")
    print("   " + line("all reports asked", mean_tally(helds, chosen_rule)))
    print("     each assignment (right/wrong): " + " ".join(f"{c['right']}/{c['wrong']}" for c in per))
    segment_study(helds, chosen_rule)
    for origin in ("corpus", "dev"):
        print("   " + line(f"  of them from the {origin}",
                           mean_tally(helds, chosen_rule, lambda h, o=origin: h.report.origin == o)))
    print("   calibration (first assignment's held-out answers by probability): " + (", ".join(
        f"p >= {r['from']}: {r['right']} of {r['answered']} right"
        for r in T.calibration(held, *chosen_rule)) or "no answers"))
    tried = [{k: (round(v / n, 1) if k in T.tally([], (1.0, 0.0), T.NEVER) else v) for k, v in t.items()}
             for t in tried if t["min_similarity"] == best["min_similarity"]
             and (t["scale"], t["none_bias"]) == chosen_rule[0]]
    allowed = [t for t in tried if T.within_budget(t)]
    most = max(allowed, key=lambda t: (t["right"], -t["wrong"])) if allowed else None
    print("   other thresholds at this calibration and least similarity (mean right/wrong; out-of-scope claimed):")
    print("     " + " ".join(f"{t['threshold']:.2f}:{t['right']:g}/{t['wrong']:g};{t['out_of_scope_claimed']:g}"
                             for t in tried[::5]))
    if most:
        print("   " + line(f"  most right in budget (p >= {most['threshold']})", most))
    # What answering more would cost: the most right answers within both budgets at any calibration of a coarse
    # grid (chosen on the very reports scored, so optimistic), with its precision.
    looser = []
    for scale in LOOSER_SCALES:
        for bias in LOOSER_BIASES:
            for threshold in T.THRESHOLD_GRID[::5]:
                c = mean_tally(helds, ((scale, bias), threshold, 0.0))
                if T.within_budget(c):
                    looser.append({"scale": scale, "none_bias": bias, "threshold": threshold, **c})
    widest = max(looser, key=lambda t: (t["right"], -t["wrong"]))
    print("   most right in budget at any calibration (chosen on these reports: optimistic):")
    print("   " + line(f"  {describe(widest)}", widest))
    print("   held-out answers of the first assignment (report, answer, label, probability):")
    for h in held:
        got = T.answer(h, *chosen_rule)
        if got:
            print(f"     {'right' if got == h.report.label else 'WRONG':<5} {h.report.url:<70} {got:<18} "
                  f"label {h.report.scope:<18} {h.verdict(chosen_rule[0])[1]:.2f}")
    print()

    n_counts, chosen = cross_chosen(reports, helds)
    print("2. cross-chosen: each fold's setting chosen by the pooled rule without its repositories (mean over the "
          "assignments)")
    print("   " + line("all reports asked", n_counts))
    print("   per fold of the first assignment: " + "; ".join(f"{c['fold']}: {describe(c)}" for c in chosen))
    print()

    print("3. end to end")
    fallback.use_model(None)
    before_corpus, before_dev = corpus_grades(knowledge), devset_counts()
    cv_answer = {h.report.id: T.answer(h, *chosen_rule) for h in held}  # the first assignment's
    cv_corpus = corpus_grades(knowledge, {i: (f"family:{g}" if g else None) for i, g in cv_answer.items()
                                          if not i.startswith("dev:")})
    dev_tops = devset_script.top_answers(devset_script.load_examples(devset_script.MANIFEST), devset_script.MANIFEST)
    for i, g in cv_answer.items():
        if i.startswith("dev:") and g:
            dev_tops[i[len("dev:"):]] = ("family", g)
    cv_dev = devset_counts(dev_tops)
    fallback.use_model(fallback.FallbackModel(read_fallback_model()))
    after_corpus, after_dev = corpus_grades(knowledge), devset_counts()
    dev_urls = {r.url.rstrip("/") for r in reports if r.origin == "dev"}
    corpus_only = [r for r in reports if r.origin == "corpus" and r.url.rstrip("/") not in dev_urls]
    data, _ = T.train(knowledge, reports=corpus_only)
    fallback.use_model(fallback.FallbackModel(data))
    no_dev = devset_counts()
    fallback.use_model(None)
    print("   scripts/corpus.py score (all corpus reports; out-of-scope silent counts right):")
    print("   " + grades_line("without the fallback", before_corpus))
    print("   " + grades_line("fallback, each repository held out (CV, 1st)", cv_corpus))
    print("   " + grades_line("shipped model (trained on these reports)", after_corpus))
    print("   benchmarks/diagnose_devset.py:")
    print("   " + dev_line("without the fallback", before_dev))
    print("   " + dev_line("fallback, each repository held out (CV, 1st)", cv_dev))
    print("   " + dev_line("shipped model (trained on the dev set too)", after_dev))
    print("   " + dev_line("model trained on the corpus only", no_dev))
    print(f"     (corpus-only model: {len(corpus_only)} corpus reports, the dev set and the "
          f"{sum(r.origin == 'corpus' for r in reports) - len(corpus_only)} corpus copies of dev-set reports left "
          f"out; its own CV: {T.model_summary(data).split('held out by repository ')[1]})")
    print()

    print("4. title words (item 3): kb's answer to a title alone, and the shipped model's verdict on it")
    model = fallback.FallbackModel(read_fallback_model())
    fallback.use_model(model)
    for phrase in TITLE_PHRASES:
        v = model.verdict(fallback.document_text([phrase], None, []))
        verdict = f"{v.label} p={v.probability:.2f}" if v else "no term known"
        print(f"   {phrase!r:<50} kb: {top_of(phrase + chr(10), knowledge):<42} model: {verdict}")
    fallback.use_model(None)
    print("   corpus title-only reports with these words, by label (family/cause):")
    titled = [r for r in T.corpus_records() if not r["error"].strip()]
    for name, pattern in TITLE_WORDS.items():
        hits = [r for r in titled if re.search(pattern, r["title"], re.I)]
        labels = Counter(f"{r['label']['family']}/{r['label']['cause']}" for r in hits)
        print(f"     {name:<18} {len(hits):>3}: " + ", ".join(f"{k} {v}" for k, v in labels.most_common(6)))
    print()
    print(f"shipped model: {T.model_summary(read_fallback_model())}")
    knn = REPO / "benchmarks" / "results" / "fallback-cv-knn.txt"
    if knn.exists():  # the figures of the model this replaced, for comparison
        print()
        print(f"for comparison, the nearest-neighbour model it replaced ({knn.relative_to(REPO)}, same reports):")
        section = ""
        for row in knn.read_text(encoding="utf-8").splitlines():
            section = row.split(".", 1)[0] if row[:2] in ("1.", "2.", "3.") else section
            if (section in ("1", "2") and " asked " in row and "from the" not in row) or (section == "3" and ":" in row
                                                                           and "right" in row and "(" in row):
                print(f"   [{section}] {row.strip()}")
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
