"""Turn 43 (issue #24 items 3 and 4): the learned fallback's curve, held out by repository, for the shipped recipe
and a few others: answered / right / wrong / out-of-scope claimed at each threshold of the answer's probability.

    python benchmarks/fallback_curve.py [--cache /tmp/kb-fallback-curve.pkl] [--variants shipped,kinds,...] [--seeds 3]

Every report is read once by kb's own parse with the fallback off (scripts/fallback_train.load_reports: the corpus and
the dev set, never corpus/sealed/); the "asked" reports are those no signature or prior answers. Each variant is
fitted FOLDS times per fold assignment (folds_by_repo's seeds 0..SEEDS-1: a repository's reports are held out
together) and scores the asked reports of the held-out repositories. The held-out probabilities are calibrated as the
trainer does (fit_calibration's scale and none bias on the pooled held-out scores), and a report is answered when its
top class is a family, not ruled out by the title keywords' excludes, at or above the threshold; a report whose first
lines name other software is never answered (fallback.fallback_answers' rule). The goal the brief sets: wrong <= 2% of
the answers and out-of-scope claimed <= 2% of the out-of-scope reports asked. Counts are means over the assignments.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import fallback_train as T  # noqa: E402

from kb.diagnose import fallback  # noqa: E402

NONE = T.NONE
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)


def load(cache: str | None) -> tuple[list[T.Report], dict[str, Any]]:
    from kb.knowledge.registry import load_knowledge

    knowledge = load_knowledge()
    priors = knowledge.tables.get("priors")
    if cache and Path(cache).exists():
        with open(cache, "rb") as handle:
            rows = pickle.load(handle)
        return [T.Report(**row) for row in rows], priors
    reports = T.load_reports(knowledge)
    if cache:
        with open(cache, "wb") as handle:
            pickle.dump([{s: getattr(r, s) for s in T.Report.__slots__} for r in reports], handle)
    return reports, priors


# ---- features ---------------------------------------------------------------------------------------------------

def plain_terms(document: str, with_error: bool) -> dict[str, int]:
    return T.terms_of(document)


def kind_terms(document: str, with_error: bool) -> dict[str, int]:
    """The shipped terms, and each again under its kind (title/prose or error): the model may weigh a word of a
    title apart from the same word in an error (feature augmentation)."""
    base = T.terms_of(document)
    prefix = "E|" if with_error else "T|"
    return {**base, **{prefix + t: c for t, c in base.items()}}


FEATURES = {"plain": plain_terms, "kinds": kind_terms}


def matrix(rows: list[tuple[str, bool]], features: Any, index: dict[str, int] | None, min_df: int = 2) -> Any:
    from scipy import sparse

    counted = [features(d, e) for d, e in rows]
    if index is None:
        df: Counter[str] = Counter()
        for c in counted:
            df.update(c.keys())
        vocabulary = sorted(t for t, n in df.items() if n >= min_df)
        index = {t: i for i, t in enumerate(vocabulary)}
        n = len(rows)
        idf = [math.log((1 + n) / (1 + df[t])) + 1.0 for t in vocabulary]
        matrix.idf = idf  # type: ignore[attr-defined]
    idf = matrix.idf  # type: ignore[attr-defined]
    r, c, v = [], [], []
    for i, counts in enumerate(counted):
        for j, x in fallback.weigh(counts, index, idf).items():
            r.append(i)
            c.append(j)
            v.append(x)
    return sparse.csr_matrix((v, (r, c)), shape=(len(rows), len(index))), index


# ---- variants ---------------------------------------------------------------------------------------------------

CAUSES: dict[str, str] = {}  # corpus id -> labelled cause (read once, for the cause-level variant)
MIN_CAUSE = 3  # a (label, cause) with fewer training reports joins its label's rest


def causes() -> dict[str, str]:
    if not CAUSES:
        import json

        for path in sorted((REPO / "corpus").glob("reports-*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    record = json.loads(line)
                    CAUSES[record["id"]] = record["label"]["cause"]
    return CAUSES


def label_of(r: T.Report, split_none: bool | str) -> str:
    if split_none == "cause":  # a class per labelled cause: the label's name first, so the family is its prefix
        base = r.label if r.label != NONE else ("oos" if r.scope == T.OUT_OF_SCOPE else "unknown")
        return f"{base}/{causes().get(r.id, '')}"
    if r.label != NONE or not split_none:
        return r.label
    return "oos" if r.scope == T.OUT_OF_SCOPE else "unknown"


def training(reports: list[T.Report], split_none: bool | str, titles: bool = True) -> list[tuple[str, bool, str]]:
    rows = []
    for r in reports:
        if r.train:
            rows.append((r.document, r.with_error, label_of(r, split_none)))
            if titles and r.title_document.strip():
                rows.append((r.title_document, False, label_of(r, split_none)))
    if split_none == "cause":
        sizes = Counter(lab for _, _, lab in rows)
        rows = [(d, e, lab if sizes[lab] >= MIN_CAUSE else lab.split("/")[0] + "/rest") for d, e, lab in rows]
    return rows


def fit_predict(train: list[T.Report], test: list[T.Report], variant: dict[str, Any]) -> tuple[list[str], Any]:
    import numpy as np

    rows = training(train, variant.get("split_none", False), variant.get("titles", True))
    features = FEATURES[variant.get("features", "plain")]
    x, index = matrix([(d, e) for d, e, _ in rows], features, None)
    y = [lab for _, _, lab in rows]
    model = variant["model"]
    if model == "svm":
        from sklearn.svm import LinearSVC

        clf = LinearSVC(C=variant.get("C", T.C), random_state=0, class_weight=variant.get("class_weight"))
    else:
        from sklearn.linear_model import LogisticRegression

        clf = LogisticRegression(C=variant.get("C", 4.0), max_iter=2000, class_weight=variant.get("class_weight"))
    clf.fit(x, y)
    xt, _ = matrix([(r.document, r.with_error) for r in test], features, index)
    scores = clf.decision_function(xt)
    classes = [str(c) for c in clf.classes_]
    empty = np.asarray(xt.getnnz(axis=1) == 0)
    return classes, (scores, empty)


class Held:
    __slots__ = ("report", "classes", "scores", "ruled", "seed")

    def __init__(self, report: T.Report, classes: list[str], scores: list[float], ruled: frozenset[str], seed: int):
        self.report, self.classes, self.scores, self.ruled, self.seed = report, classes, scores, ruled, seed


def cross_validate(reports: list[T.Report], variant: dict[str, Any], seeds: int, priors: Any) -> list[Held]:
    ruled = {id(r): frozenset(fallback.ruled_out(r.document, priors)) for r in reports if r.prior is None}
    out = []
    for seed in range(seeds):
        fold_of = T.folds_by_repo(reports, T.FOLDS, seed)
        for f in range(T.FOLDS):
            train = [r for r in reports if fold_of[r.repo] != f]
            test = [r for r in reports if fold_of[r.repo] == f and r.prior is None]
            classes, (scores, empty) = fit_predict(train, test, variant)
            if variant.get("split_none") == "cause":  # a family's score: the best of its causes' classes
                families = sorted({c.split("/")[0] for c in classes})
                columns = [[i for i, c in enumerate(classes) if c.split("/")[0] == f] for f in families]
                scores = [[max(row[i] for i in cols) for cols in columns] for row in scores]
                classes = families
            for r, s, e in zip(test, scores, empty):
                out.append(Held(r, classes, [] if e else [float(v) for v in s], ruled[id(r)], seed))
    return out


NONE_LIKE = (NONE, "oos", "unknown")


def calibrate(held: list[Held]) -> tuple[float, float]:
    """Scale and a bias added to every none-like class, least log loss of the label's class (none-like labels: the
    sum of the none-like classes' probabilities)."""
    import numpy as np

    groups: dict[tuple[str, ...], list[Held]] = {}
    for h in held:
        if h.scores and not h.report.other:
            groups.setdefault(tuple(h.classes), []).append(h)
    data = []
    for classes, hs in groups.items():
        s = np.array([h.scores for h in hs])
        none = np.array([c in NONE_LIKE for c in classes])
        lab = np.array([classes.index(h.report.label) if h.report.label in classes else -1 for h in hs])
        data.append((s, none, lab))

    def loss(scale: float, bias: float) -> float:
        total = 0.0
        for s, none, lab in data:
            x = s + bias * none
            x = scale * (x - x.max(axis=1, keepdims=True))
            p = np.exp(x)
            p /= p.sum(axis=1, keepdims=True)
            pn = p[:, none].sum(axis=1)
            chosen = np.where(lab >= 0, p[np.arange(len(lab)), np.maximum(lab, 0)], pn)
            total -= float(np.log(np.maximum(chosen, 1e-9)).sum())
        return total
    return min(((s, b) for s in T.SCALE_GRID for b in T.NONE_BIAS_GRID), key=lambda c: (loss(*c), c))


def verdict(h: Held, calibration: tuple[float, float]) -> tuple[str | None, float]:
    """The answer's family and its probability (the top class must be a family), or (None, 0)."""
    if not h.scores or h.report.other:
        return None, 0.0
    scale, bias = calibration
    s = [v + (bias if c in NONE_LIKE else 0.0) for v, c in zip(h.scores, h.classes)]
    p = fallback.softmax(s, scale)
    best = max(range(len(p)), key=lambda i: (p[i], -i))
    label = h.classes[best]
    if label in NONE_LIKE or label in h.ruled:
        return None, 0.0
    return label, p[best]


def curve(held: list[Held], calibration: tuple[float, float], seeds: int,
          thresholds: tuple[float, ...] = THRESHOLDS) -> list[dict[str, float]]:
    asked = len(held) / seeds
    family = sum(h.report.label != NONE for h in held) / seeds
    oos = sum(h.report.scope == T.OUT_OF_SCOPE for h in held) / seeds
    answers = [(p, lab == h.report.label, h.report.scope) for h in held for lab, p in [verdict(h, calibration)] if lab]
    rows = []
    for t in thresholds:
        got = [a for a in answers if a[0] >= t]
        right = sum(a[1] for a in got) / seeds
        wrong = sum(not a[1] for a in got) / seeds
        claimed = sum(a[2] == T.OUT_OF_SCOPE for a in got) / seeds
        unknown = sum(a[2] == T.UNKNOWN for a in got) / seeds
        rows.append({"threshold": t, "asked": asked, "with_family": family, "oos": oos, "answered": right + wrong,
                     "right": right, "wrong": wrong, "oos_claimed": claimed, "unknown_claimed": unknown})
    return rows


def best_point(held: list[Held], calibration: tuple[float, float], seeds: int) -> dict[str, float] | None:
    """The lowest threshold (0.20..0.99) whose answers are wrong at most 2% of the time and claim at most 2% of the
    out-of-scope reports asked, pooled over the assignments."""
    for row in curve(held, calibration, seeds, T.THRESHOLD_GRID):
        if row["answered"] and row["wrong"] <= 0.02 * row["answered"] and row["oos_claimed"] <= 0.02 * row["oos"]:
            return row
    return None


def margin_ceiling(held: list[Held], seeds: int, at: tuple[int, ...] = (0, 1, 2, 5, 10, 20)) -> str:
    """An ordering, not a threshold of the calibrated probability: every asked report (not other software's) by the
    margin of its best family's raw score over the best none-like class's, highest first; the most right answers
    before the wrong ones (summed over the assignments) pass each count in ``at`` (per assignment: divided by the
    assignments), with the out-of-scope reports claimed by then. Optimistic: the cut is chosen on these reports."""
    ranked = []
    for h in held:
        if not h.scores or h.report.other:
            continue
        fam = [(v, c) for v, c in zip(h.scores, h.classes) if c not in NONE_LIKE and c not in h.ruled]
        if not fam:
            continue
        top, label = max(fam)
        none = max(v for v, c in zip(h.scores, h.classes) if c in NONE_LIKE)
        ranked.append((top - none, label == h.report.label, h.report.scope == T.OUT_OF_SCOPE))
    ranked.sort(key=lambda x: -x[0])
    out, right, wrong, oos = [], 0, 0, 0
    best = dict.fromkeys(at, (0, 0))
    for _, ok, is_oos in ranked:
        right, wrong, oos = right + ok, wrong + (not ok), oos + is_oos
        for w in at:
            if wrong <= w * seeds:
                best[w] = (right, oos)
    for w in at:
        out.append(f"{w}: {best[w][0] / seeds:.1f} (oos {best[w][1] / seeds:.1f})")
    return "most right by margin at n wrong per assignment: " + ", ".join(out)


def fmt(row: dict[str, float]) -> str:
    answered = row["answered"]
    share = f"{row['wrong'] / answered:5.1%}" if answered else "    -"
    return (f"p >= {row['threshold']:.2f}: answered {answered:6.1f}, right {row['right']:6.1f}, wrong {row['wrong']:5.1f}"
            f" ({share} of answers; unknown-family {row['unknown_claimed']:4.1f}), out-of-scope claimed "
            f"{row['oos_claimed']:4.1f} of {row['oos']:.0f}")


VARIANTS: dict[str, dict[str, Any]] = {
    "shipped": {"model": "svm", "features": "plain"},
    "kinds": {"model": "svm", "features": "kinds"},
    "split": {"model": "svm", "features": "plain", "split_none": True},
    "kinds-split": {"model": "svm", "features": "kinds", "split_none": True},
    "lr": {"model": "lr", "features": "plain", "C": 4.0},
    "lr-kinds-split": {"model": "lr", "features": "kinds", "split_none": True, "C": 4.0},
    "cause": {"model": "svm", "features": "plain", "split_none": "cause"},
    "cause-kinds": {"model": "svm", "features": "kinds", "split_none": "cause"},
    "svm-balanced-split": {"model": "svm", "features": "kinds", "split_none": True, "class_weight": "balanced"},
}


def trainer_curve(reports: list[T.Report], priors: Any, seeds: int, keep: int) -> None:
    """The trainer's own cross-validation (scripts/fallback_train.py: KEEP_TERMS pruning, the run-time
    FallbackModel, the least similarity, the keywords' excludes), its pooled choice, and the curve at the chosen
    calibration and least similarity: what `kb diagnose` would answer on held-out repositories."""
    T.KEEP_TERMS = keep
    t0 = time.perf_counter()
    helds = [T.cross_validate(reports, priors=priors, seed=seed) for seed in range(seeds)]
    best, per = T.choose_repeated(helds)
    pooled = [h for held in helds for h in held]
    cal = (best["scale"], best["none_bias"])
    print(f"\n[trainer, {keep} terms] chosen: scale {best['scale']}, none bias {best['none_bias']}, threshold "
          f"{best['threshold']}, least similarity {best['min_similarity']}; each assignment (right, wrong) "
          f"{[(c['right'], c['wrong']) for c in per]}  ({time.perf_counter() - t0:.0f} s)")
    for m in sorted({0.0, best["min_similarity"]}):
        table = T.tallies(pooled, cal, THRESHOLDS, (m,))
        print(f"  least similarity {m}:")
        for t in THRESHOLDS:
            c = table[(t, m)]
            answered = c["right"] + c["wrong"]
            row = {"threshold": t, "answered": answered / seeds, "right": c["right"] / seeds,
                   "wrong": c["wrong"] / seeds, "oos_claimed": c["out_of_scope_claimed"] / seeds,
                   "oos": c["out_of_scope"] / seeds, "unknown_claimed": float("nan")}
            print("    " + fmt(row))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cache", default=None, help="pickle of the parsed reports (made when missing)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--seeds", type=int, default=3, help="fold assignments (folds_by_repo seeds 0..N-1)")
    ap.add_argument("--trainer", default="", help="comma-separated KEEP_TERMS: the trainer's own CV at each")
    ns = ap.parse_args(argv)
    started = time.perf_counter()
    reports, priors = load(ns.cache)
    asked = [r for r in reports if r.prior is None]
    print(f"reports {len(reports)} ({dict(Counter(r.origin for r in reports))}), training {sum(r.train for r in reports)}"
          f"; asked (no signature or prior answers) {len(asked)}: with a family {sum(r.label != NONE for r in asked)}"
          f" (title/prose alone {sum(r.label != NONE and not r.with_error for r in asked)}), out-of-scope "
          f"{sum(r.scope == T.OUT_OF_SCOPE for r in asked)}, unknown-family {sum(r.scope == T.UNKNOWN for r in asked)}"
          f"; {ns.seeds} fold assignments of {T.FOLDS} folds by repository")
    for keep in [int(k) for k in ns.trainer.split(",") if k]:
        trainer_curve(reports, priors, ns.seeds, keep)
    for name in [v for v in ns.variants.split(",") if v]:
        t0 = time.perf_counter()
        held = cross_validate(reports, VARIANTS[name], ns.seeds, priors)
        cal = calibrate(held)
        print(f"\n[{name}] {VARIANTS[name]}  calibration scale {cal[0]}, none bias {cal[1]}"
              f"  ({time.perf_counter() - t0:.0f} s)")
        for kind, part in (("all", held), ("with an error", [h for h in held if h.report.with_error]),
                           ("title/prose alone", [h for h in held if not h.report.with_error])):
            print(f"  {kind}")
            for row in curve(part, cal, ns.seeds):
                print("    " + fmt(row))
            best = best_point(part, cal, ns.seeds)
            print("    lowest threshold within both budgets: " + (fmt(best) if best else "none"))
            print("    " + margin_ceiling(part, ns.seeds))
        answered = Counter((h.report.label, verdict(h, cal)[0]) for h in held if verdict(h, cal)[1] >= 0.5)
        print("  answers at p >= 0.5 (label -> answer: count over the assignments): "
              + ", ".join(f"{a}->{b}: {n}" for (a, b), n in answered.most_common(20)))
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
