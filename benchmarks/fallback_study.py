"""Would a better model make the learned fallback (kb/diagnose/fallback.py) useful?  (issue 24, item 4; turn 38)

    python benchmarks/fallback_study.py [--seeds 5] [--variants NAME,NAME] [--cache DIR] > out.txt

The same cross-validation grouped by repository as scripts/fallback_train.py (its reports, its folds_by_repo with
seeds 0..N-1, its rule: choose_repeated on the held-out scores of every assignment pooled, wrong answers at most 2%
of the reports asked, out-of-scope claims at most 2% of those asked, right less 2 x wrong), with other features,
labels, weightings and models in the shipped one's place. For each variant:

- chosen: the pooled choice's held-out right / wrong / out-of-scope claimed (mean over the assignments, and each);
- cross-chosen: the same rule where the setting that answers a group of repositories is chosen WITHOUT that group
  (repositories in 5 groups by a hash independent of the folds; the scores are held out already, this holds out the
  choice too): the figure that does not flatter a rule with many settings, such as per-family thresholds;
- per-family thresholds (each family's own threshold, most right less 2 x wrong of its answers, then the budgets on
  the whole) chosen and cross-chosen;
- title-only and with-error apart: right/wrong, and the ceiling (reports labelled with a family whose top family,
  at any threshold, is the label; and fallback_train.ceiling's most right at 0/1/2/5 wrong);
- the shipped variant's precision and recall per family, title-only and with-error apart.

Held-out scores of each (variant, seed) are cached under --cache (keyed by the corpus, the dev manifest and the
priors table, and the variant's name: clear it when a variant's code changes). Needs scikit-learn and scipy (the
dev extra). Each cross-validation takes 10-40 s on 2 shared cores.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from kb.diagnose import fallback  # noqa: E402

import fallback_train as T  # noqa: E402  (scripts/fallback_train.py)

OOS_CLASS = "none-oos"  # the out-of-scope reports' own class of no family (variants "oos")
GROUPS = 5  # the repositories' groups of the cross-chosen figure
CEILING_AT = (0, 1, 2, 5)

Featurize = Callable[[str, bool], dict[str, int]]


# ---- features -------------------------------------------------------------------------------------------------

def shipped_terms(document: str, with_error: bool) -> dict[str, int]:
    return fallback.terms(document)


def words_only(document: str, with_error: bool) -> dict[str, int]:
    return {t: c for t, c in fallback.terms(document).items() if t[:2] in ("w:", "b:")}


def ngrams_only(document: str, with_error: bool) -> dict[str, int]:
    return {t: c for t, c in fallback.terms(document).items() if t[:2] not in ("w:", "b:")}


def no_error_flag(document: str, with_error: bool) -> dict[str, int]:
    """The shipped terms and one term saying that kb's parse found no error (a title or prose alone)."""
    found = fallback.terms(document)
    return found if with_error else {**found, "z:no-error": 1}


def augmented(document: str, with_error: bool) -> dict[str, int]:
    """Feature augmentation (a title-only model inside the one model): every term, and for a report without an
    error, a copy of each word and word pair marked ``t:`` that only title/prose-only reports carry, so the model
    can weigh a title's words apart from the same words in an error."""
    found = fallback.terms(document)
    if with_error:
        return found
    extra = {"t:" + t: c for t, c in found.items() if t[:2] in ("w:", "b:")}
    return {**found, **extra, "z:no-error": 1}


# ---- models ----------------------------------------------------------------------------------------------------

def svm(c: float = T.C, balanced: bool = False) -> Callable[[Any, list[str]], tuple[list[str], Any, Any]]:
    def fit(x: Any, y: list[str]) -> tuple[list[str], Any, Any]:
        from sklearn.svm import LinearSVC

        m = LinearSVC(C=c, random_state=0, class_weight="balanced" if balanced else None).fit(x, y)
        return [str(k) for k in m.classes_], m.coef_, m.intercept_
    return fit


def logistic(c: float = 4.0, balanced: bool = False) -> Callable[[Any, list[str]], tuple[list[str], Any, Any]]:
    def fit(x: Any, y: list[str]) -> tuple[list[str], Any, Any]:
        from sklearn.linear_model import LogisticRegression

        m = LogisticRegression(C=c, max_iter=3000, class_weight="balanced" if balanced else None).fit(x, y)
        return [str(k) for k in m.classes_], m.coef_, m.intercept_
    return fit


class Variant:
    def __init__(self, name: str, featurize: Featurize = shipped_terms, fit: Any = None, oos: bool = False,
                 knn: int = 0, keep: int = T.KEEP_TERMS, separate: bool = False) -> None:
        self.name, self.featurize, self.fit, self.oos, self.knn, self.keep = name, featurize, fit or svm(), oos, knn, keep
        self.separate = separate  # a second model, of titles and title/prose-only reports alone, answers those


VARIANTS = [
    Variant("shipped: words, word pairs, character n-grams; SVM C=0.5"),
    Variant("words and word pairs only (no n-grams)", words_only),
    Variant("character n-grams only (no words)", ngrams_only),
    Variant("+ a 'no error shown' term", no_error_flag),
    Variant("+ title-only copies of words (augmented)", augmented),
    Variant("class-balanced SVM", fit=svm(balanced=True)),
    Variant("out-of-scope a class apart", oos=True),
    Variant("out-of-scope apart + augmented", augmented, oos=True),
    Variant("out-of-scope apart + augmented + balanced", augmented, svm(balanced=True), oos=True),
    Variant("logistic regression C=4", fit=logistic(4.0)),
    Variant("SVM C=0.2", fit=svm(0.2)),
    Variant("SVM C=1.0", fit=svm(1.0)),
    Variant("12000 terms kept", keep=12000),
    Variant("nearest neighbours (k=7, TF-IDF cosine vote)", knn=7),
    Variant("a separate title-only model for reports without an error", separate=True),
    Variant("a separate title-only model, out-of-scope apart", oos=True, separate=True),
]


# ---- cross-validation ------------------------------------------------------------------------------------------

class Cache:
    def __init__(self, featurize: Featurize) -> None:
        self.featurize = featurize
        self.found: dict[tuple[str, bool], dict[str, int]] = {}

    def __call__(self, document: str, with_error: bool) -> dict[str, int]:
        key = (document, with_error)
        got = self.found.get(key)
        if got is None:
            got = self.found[key] = self.featurize(document, with_error)
        return got


def _matrix(rows: list[tuple[str, bool]], feats: Cache, index: dict[str, int], idf: list[float]) -> Any:
    from scipy import sparse

    r_, c_, v_ = [], [], []
    for i, (doc, we) in enumerate(rows):
        for j, v in fallback.weigh(feats(doc, we), index, idf).items():
            r_.append(i)
            c_.append(j)
            v_.append(v)
    return sparse.csr_matrix((v_, (r_, c_)), shape=(len(rows), len(index)))


def _label(r: T.Report, oos: bool) -> str:
    return OOS_CLASS if oos and r.label == T.NONE and r.scope == T.OUT_OF_SCOPE else r.label


def fit_fold(train: list[T.Report], variant: Variant, feats: Cache, titles: bool = False) -> dict[str, Any]:
    """The model of one fold, as T.fit builds it (MIN_DF, idf, fit, keep the heaviest terms, fit again) but with
    the variant's features, labels and fitter; and its evidence (each family report's heaviest EVIDENCE_TERMS)."""
    import math

    import numpy as np

    rows, labels = [], []
    for r in train:
        if r.train and not (titles and r.with_error):  # the title model: reports without an error, and titles
            rows.append((r.document, r.with_error))
            labels.append(_label(r, variant.oos))
            if r.title_document.strip():
                rows.append((r.title_document, False))
                labels.append(_label(r, variant.oos))
    df: Counter[str] = Counter()
    for doc, we in rows:
        df.update(feats(doc, we).keys())
    n = len(rows)
    vocabulary = sorted(t for t, c in df.items() if c >= T.MIN_DF)
    idf = [round(math.log((1 + n) / (1 + df[t])) + 1.0, 4) for t in vocabulary]
    index = {t: i for i, t in enumerate(vocabulary)}
    x = _matrix(rows, feats, index, idf)
    if variant.knn:
        model = {"x": x, "labels": np.array(labels), "classes": sorted(set(labels))}
    else:
        classes, coef, intercept = variant.fit(x, labels)
        weight = abs(coef).max(axis=0)
        keep = sorted(sorted(range(len(vocabulary)), key=lambda j: (-weight[j], vocabulary[j]))[:variant.keep])
        vocabulary, idf = [vocabulary[j] for j in keep], [idf[j] for j in keep]
        index = {t: i for i, t in enumerate(vocabulary)}
        x = _matrix(rows, feats, index, idf)
        classes, coef, intercept = variant.fit(x, labels)
        if len(classes) == 2:
            coef, intercept = np.vstack([-coef[0], coef[0]]), np.array([-intercept[0], intercept[0]])
        model = {"classes": classes, "coef": np.asarray(coef), "intercept": np.asarray(intercept)}
    ev_labels, ev_rows, seen = [], [], set()
    from scipy import sparse

    r_, c_, v_ = [], [], []
    for r in train:
        url = r.url.rstrip("/")
        if not r.train or r.label == T.NONE or url in seen:
            continue
        seen.add(url)
        top = sorted(fallback.weigh(feats(r.document, r.with_error), index, idf).items(), key=lambda x: (-x[1], x[0]))
        top = top[:T.EVIDENCE_TERMS]
        if top:
            for j, w in top:
                r_.append(len(ev_labels))
                c_.append(j)
                v_.append(round(w, 3))
            ev_labels.append(r.label)
            ev_rows.append(url)
    model.update(index=index, idf=idf, evidence=sparse.csr_matrix((v_, (r_, c_)), shape=(len(ev_labels), len(index))),
                 evidence_labels=np.array(ev_labels))
    return model


def score_fold(model: dict[str, Any], test: list[T.Report], variant: Variant, feats: Cache,
               ruled: dict[str, frozenset[str]]) -> list[T.HeldOut]:
    import numpy as np

    x = _matrix([(r.document, r.with_error) for r in test], feats, model["index"], model["idf"])
    if variant.knn:
        sims = (x @ model["x"].T).toarray()
        classes = model["classes"]
        scores = np.zeros((len(test), len(classes)))
        for i in range(len(test)):
            top = np.argsort(-sims[i])[:variant.knn]
            for j in top:
                scores[i, classes.index(model["labels"][j])] += sims[i, j]
    else:
        classes = model["classes"]
        scores = np.asarray(x @ model["coef"].T) + model["intercept"]
    if OOS_CLASS in classes:  # the classes of no family answer as one: "none" scores the better of the two
        i, j = classes.index(OOS_CLASS), classes.index(T.NONE)
        scores[:, j] = np.maximum(scores[:, i], scores[:, j])
        scores = np.delete(scores, i, axis=1)
        classes = [c for c in classes if c != OOS_CLASS]
    ev = (x @ model["evidence"].T).toarray() if model["evidence"].shape[0] else np.zeros((len(test), 0))
    fam = [k for k, c in enumerate(classes) if c != T.NONE]
    out = []
    nonzero = np.asarray(x.getnnz(axis=1)).ravel()
    for i, r in enumerate(test):
        if not nonzero[i]:
            out.append(T.HeldOut(r, classes, [], 0.0, ruled[r.id]))
            continue
        row = scores[i]
        best = max(fam, key=lambda k: (row[k], -k))
        mask = model["evidence_labels"] == classes[best]
        s = ev[i][mask]
        similarity = float(s.max()) if s.size and s.max() > 0 else 0.0
        out.append(T.HeldOut(r, classes, [float(v) for v in row], similarity, ruled[r.id]))
    return out


def cross_validate(reports: list[T.Report], variant: Variant, seed: int, feats: Cache,
                   ruled: dict[str, frozenset[str]]) -> list[T.HeldOut]:
    fold_of = T.folds_by_repo(reports, T.FOLDS, seed)
    out = []
    for f in range(T.FOLDS):
        train = [r for r in reports if fold_of[r.repo] != f]
        test = [r for r in reports if fold_of[r.repo] == f and r.prior is None]
        model = fit_fold(train, variant, feats)
        if variant.separate:
            out += score_fold(model, [r for r in test if r.with_error], variant, feats, ruled)
            titles = fit_fold(train, variant, feats, titles=True)
            out += score_fold(titles, [r for r in test if not r.with_error], variant, feats, ruled)
        else:
            out += score_fold(model, test, variant, feats, ruled)
    return out


# ---- rules -----------------------------------------------------------------------------------------------------

def _group(repo: str) -> int:
    return int(hashlib.sha1(f"group:{repo}".encode()).hexdigest(), 16) % GROUPS


def per_family(helds: list[list[T.HeldOut]], best: dict[str, Any]) -> dict[str, float]:
    """Each family's threshold at the pooled choice's calibration and least similarity: the one of most right less
    WRONG_COST x wrong among that family's answers (ties: the higher); then, while the pool's budgets are broken, the
    family whose answers cost most is silenced."""
    calib = (best["scale"], best["none_bias"])
    answers: dict[str, list[tuple[float, bool, bool]]] = {}
    for held in helds:
        for h in held:
            if h.report.other:
                continue
            label, p = h.verdict(calib)
            if label and label != T.NONE and label not in h.ruled_out and h.similarity >= best["min_similarity"]:
                answers.setdefault(label, []).append((p, label == h.report.label, h.report.scope == T.OUT_OF_SCOPE))
    out = {}
    for fam, got in answers.items():
        def gain(t: float) -> tuple[float, float]:
            right = sum(ok for p, ok, _ in got if p >= t)
            wrong = sum(not ok for p, ok, _ in got if p >= t)
            return (right - T.WRONG_COST * wrong, t)
        out[fam] = max(T.THRESHOLD_GRID, key=gain)
        if gain(out[fam])[0] <= 0:
            out[fam] = T.NEVER
    pooled = [h for held in helds for h in held]
    while not T.within_budget(tally_pf(pooled, best, out)):
        fam = min((f for f, t in out.items() if t < T.NEVER),
                  key=lambda f: sum(ok - T.WRONG_COST * (not ok) for p, ok, _ in answers[f] if p >= out[f]))
        out[fam] = T.NEVER
    return out


def tally_pf(held: list[T.HeldOut], best: dict[str, Any], thresholds: dict[str, float] | None) -> dict[str, int]:
    """T.tally with each family's own threshold (None: the chosen one for all)."""
    calib = (best["scale"], best["none_bias"])
    if thresholds is None:
        return T.tally(held, calib, best["threshold"], best["min_similarity"])
    c = dict(T.tally([], calib, T.NEVER), asked=len(held))
    for h in held:
        got = T.answer(h, calib, 0.0, best["min_similarity"])
        if got and h.verdict(calib)[1] < thresholds.get(got, T.NEVER):
            got = None
        truth = h.report.label
        c[("right" if got == truth else "wrong") if got else ("silent" if truth != T.NONE else "quiet")] += 1
        if h.report.scope == T.OUT_OF_SCOPE:
            c["out_of_scope"] += 1
            c["out_of_scope_claimed"] += got is not None
    return c


def cross_chosen(helds: list[list[T.HeldOut]], families: bool) -> dict[str, float]:
    """Held-out counts (mean over the assignments) where the setting for each group of repositories is chosen on
    the other groups' held-out scores alone."""
    total: Counter[str] = Counter()
    for g in range(GROUPS):
        rest = [[h for h in held if _group(h.report.repo) != g] for held in helds]
        best, _ = T.choose_repeated(rest)
        thresholds = per_family(rest, best) if families else None
        for held in helds:
            total.update(tally_pf([h for h in held if _group(h.report.repo) == g], best, thresholds))
    return {k: v / len(helds) for k, v in total.items()}


def by_kind(helds: list[list[T.HeldOut]], cross: bool) -> dict[str, float]:
    """Reports with an error and title/prose-only ones each with their own setting (calibration, threshold, least
    similarity: the pooled rule on that kind alone, its budgets that kind's shares), summed; ``cross``: each chosen
    as cross_chosen does (without the group of repositories it answers)."""
    total: Counter[str] = Counter()
    for with_error in (True, False):
        part = [[h for h in held if h.report.with_error == with_error] for held in helds]
        if cross:
            total.update(cross_chosen(part, False))
        else:
            best, per = T.choose_repeated(part)
            total.update(_mean(per))
    return dict(total)


def _fmt(c: dict[str, float]) -> str:
    return (f"right {c['right']:5.1f}, wrong {c['wrong']:4.1f}, out-of-scope claimed {c['out_of_scope_claimed']:3.1f}"
            f" of {c['out_of_scope']:.0f}")


def _mean(per: list[dict[str, int]]) -> dict[str, float]:
    return {k: sum(c[k] for c in per) / len(per) for k in per[0]}


def segments(helds: list[list[T.HeldOut]], best: dict[str, Any]) -> list[str]:
    """Right/wrong of the chosen rule, and the ceiling, for reports with an error and title/prose-only ones."""
    calib = (best["scale"], best["none_bias"])
    lines = []
    for with_error, name in ((True, "with an error"), (False, "title/prose alone")):
        parts = [[h for h in held if h.report.with_error == with_error] for held in helds]
        c = _mean([T.tally(p, calib, best["threshold"], best["min_similarity"]) for p in parts])
        fam = [h for p in parts for h in p if h.report.label != T.NONE and not h.report.other]
        top_family = sum(1 for h in fam if h.scores and h.report.label in h.classes and max(
            (k for k, cl in enumerate(h.classes) if cl != T.NONE), key=lambda k: h.scores[k]) ==
            h.classes.index(h.report.label)) / len(parts) if fam else 0
        top_any = sum(1 for h in fam if h.verdict(calib)[0] == h.report.label
                      and h.report.label not in h.ruled_out) / len(parts)
        ceil = [T.ceiling(p, best["scale"], with_error, CEILING_AT) for p in parts]
        ceil_mean = {w: sum(x[w] for x in ceil) / len(ceil) for w in CEILING_AT}
        lines.append(f"     {name:<18} asked {c['asked']:5.0f} ({len(fam) / len(parts):.0f} with a family): "
                     f"{_fmt(c)}; ceiling: top family right {top_family:.1f}, top class right {top_any:.1f}; "
                     "most right at n wrong " + ", ".join(f"{w}: {r:.1f}" for w, r in ceil_mean.items()))
    return lines


def family_table(helds: list[list[T.HeldOut]], best: dict[str, Any]) -> list[str]:
    """Per family and kind of report: labelled asked, answered as it, right (mean over assignments)."""
    calib = (best["scale"], best["none_bias"])
    rows: dict[tuple[str, bool], Counter[str]] = {}
    for held in helds:
        for h in held:
            got = T.answer(h, calib, best["threshold"], best["min_similarity"])
            label = h.report.label
            kind = h.report.with_error
            if label != T.NONE:
                rows.setdefault((label, kind), Counter())["labelled"] += 1
                top = h.verdict(calib)[0] if h.scores else None
                rows[(label, kind)]["top"] += top == label
            if got:
                rows.setdefault((got, kind), Counter())["answered"] += 1
                rows[(got, kind)]["right"] += got == label
    n = len(helds)
    out = [f"     {'family':<22} {'kind':<8} {'asked':>6} {'answered':>8} {'right':>6} {'precision':>9} {'recall':>7}"
           f" {'top class right':>15}"]
    for (fam, kind), c in sorted(rows.items(), key=lambda x: (x[0][0], not x[0][1])):
        prec = f"{c['right'] / c['answered']:.0%}" if c["answered"] else "-"
        rec = f"{c['right'] / c['labelled']:.0%}" if c["labelled"] else "-"
        out.append(f"     {fam:<22} {'error' if kind else 'title':<8} {c['labelled'] / n:6.1f} {c['answered'] / n:8.1f}"
                   f" {c['right'] / n:6.1f} {prec:>9} {rec:>7} {c['top'] / n:15.1f}")
    return out


def _fingerprint() -> str:
    h = hashlib.sha1()
    for path in sorted((REPO / "corpus").glob("reports-*.jsonl")) + [REPO / "tests/fixtures/diagnose/manifest.toml",
                                                                      REPO / "tables/priors.toml"]:
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _cached(path: Path, make: Callable[[], Any]) -> Any:
    if path.exists():
        with open(path, "rb") as handle:
            return pickle.load(handle)
    value = make()
    with open(path, "wb") as handle:
        pickle.dump(value, handle)
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=T.REPEATS, help="fold assignments (seeds 0..N-1), pooled")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--variants", default="", help="comma-separated indices of VARIANTS (default: all)")
    parser.add_argument("--cache", default="/tmp/kb-fallback-study")
    parser.add_argument("--by-kind", action="store_true", help="also a setting per kind of report (error, title)")
    ns = parser.parse_args(argv)
    started = time.perf_counter()
    cache = Path(ns.cache) / _fingerprint()
    cache.mkdir(parents=True, exist_ok=True)
    from kb.knowledge.registry import load_knowledge

    knowledge = load_knowledge()
    priors = knowledge.tables.get("priors")
    reports = _cached(cache / "reports.pickle", lambda: T.load_reports(knowledge))
    ruled = {r.id: frozenset(fallback.ruled_out(r.document, priors)) for r in reports if r.prior is None}
    seeds = list(range(ns.first_seed, ns.first_seed + ns.seeds))
    chosen = [int(i) for i in ns.variants.split(",") if i] or list(range(len(VARIANTS)))
    asked = [r for r in reports if r.prior is None]
    print(f"{len(reports)} reports, {len({r.repo for r in reports})} repositories; asked {len(asked)} "
          f"({sum(r.label != T.NONE for r in asked)} with a family; {sum(not r.with_error for r in asked)} title/prose "
          f"alone, of them {sum(not r.with_error and r.label != T.NONE for r in asked)} with a family); "
          f"fold assignments (seeds) {seeds}; cache {cache}")
    for i in chosen:
        variant = VARIANTS[i]
        feats = Cache(variant.featurize)
        t0 = time.perf_counter()
        helds = [_cached(cache / f"v{i}-seed{s}.pickle",
                         lambda s=s: cross_validate(reports, variant, s, feats, ruled)) for s in seeds]
        best, per = T.choose_repeated(helds)
        print(f"\n[{i}] {variant.name}   ({time.perf_counter() - t0:.0f} s)")
        print(f"   chosen (pooled): scale {best['scale']}, none bias {best['none_bias']}, threshold "
              f"{best['threshold']}, least similarity {best['min_similarity']}: {_fmt(_mean(per))}; each right/wrong "
              + " ".join(f"{c['right']}/{c['wrong']}" for c in per))
        print(f"   cross-chosen:                {_fmt(cross_chosen(helds, False))}")
        thresholds = per_family(helds, best)
        pf = _mean([tally_pf(h, best, thresholds) for h in helds])
        print(f"   per-family thresholds chosen: {_fmt(pf)}; " + ", ".join(
            f"{f} {t:.2f}" for f, t in sorted(thresholds.items()) if t < T.NEVER))
        print(f"   per-family cross-chosen:     {_fmt(cross_chosen(helds, True))}")
        if ns.by_kind:
            print(f"   a setting per kind (error / title), chosen: {_fmt(by_kind(helds, False))}")
            print(f"   a setting per kind, cross-chosen:          {_fmt(by_kind(helds, True))}")
        print("\n".join(segments(helds, best)))
        if i == 0 or len(chosen) == 1:
            print("   per family at the chosen rule (mean over assignments; top class right: the verdict at the chosen "
                  "calibration is the label, at any threshold):")
            print("\n".join(family_table(helds, best)))
        sys.stdout.flush()
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
