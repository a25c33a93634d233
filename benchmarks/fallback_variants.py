"""What else the learned fallback (kb/diagnose/fallback.py) could be: the same cross-validation grouped by
repository as scripts/fallback_train.py (the same reports, the same REPEATS fold assignments, the same rule for
choosing the calibration and the thresholds: fallback_train.choose_repeated, their held-out scores pooled, a wrong
answer counted WRONG_COST times a right one; benchmarks/fallback_cv.py), with other features or another model in
its place.

For each variant: the held-out counts of the setting the trainer would choose (its rule: wrong answers at most 2%
of the reports asked, out-of-scope claims at most 2%, the most right less WRONG_COST x wrong; the mean over the
assignments, and each assignment's right/wrong), and for reports in which kb's parse found an error and for
title/prose-only ones apart, the ceiling: the most right answers any threshold gives at 0, 1, 2, 5, 10 and 20 wrong
ones (fallback_train.ceiling: at the chosen scale and the best none bias for each, chosen on the reports scored, so
optimistic; the mean over the assignments). benchmarks/fallback_study.py tries further variants (title-only terms,
class weights, an out-of-scope class, per-family thresholds, nearest neighbours). A variant that does not raise the ceiling at a few wrong
answers cannot make the fallback answer more often within the budget, whatever its threshold.

    python benchmarks/fallback_variants.py [--variants 0,3] > benchmarks/results/fallback-variants.txt

Training needs scikit-learn (the ``dev`` extra).
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kb.diagnose import fallback  # noqa: E402
from kb.knowledge.registry import load_knowledge  # noqa: E402

sys.path.insert(0, str(REPO / "scripts"))
import fallback_train as T  # noqa: E402  (scripts/fallback_train.py)

CEILING_AT = (0, 1, 2, 5, 10, 20)
UNKNOWN_CLASS = "none-unknown"  # the "split none" variant's second class of no family

# Features that might generalise across repositories better than words and character n-grams (issue 24.4): the
# exception class named (``x:keyerror``), the library module path of a frame, one to three levels deep
# (``p:deepspeed``, ``p:deepspeed/runtime``, ``p:deepspeed/runtime/zero``), and quoted names replaced by one word.
_CLASS = re.compile(r"\b([A-Za-z_][\w.]*?(?:Error|Exception|Warning|Interrupt|Failure))\b")
_PATH = re.compile(r"([A-Za-z_][\w\-]*(?:[/.][A-Za-z_][\w\-]*)*)\.py\b")
_QUOTED = re.compile(r"(['\"`])[^'\"`\n]{1,80}\1")
_WORD = re.compile(r"\w+")


def structured(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in _CLASS.finditer(text):
        key = "x:" + m.group(1).rsplit(".", 1)[-1].lower()
        counts[key] = counts.get(key, 0) + 1
    for m in _PATH.finditer(text):
        parts = m.group(1).replace(".", "/").lower().split("/")
        for n in (1, 2, 3):
            if len(parts) >= n:
                key = "p:" + "/".join(parts[:n])
                counts[key] = counts.get(key, 0) + 1
    return counts


def words(text: str) -> dict[str, int]:
    """Words and pairs of neighbouring words (numbers read as 0), no character n-grams."""
    found = _WORD.findall(re.sub(r"\d+", "0", re.sub(r"0x[0-9a-f]+", " ", text.lower())))
    counts: dict[str, int] = {}
    for key in [f"w:{w}" for w in found] + [f"b:{a} {b}" for a, b in zip(found, found[1:])]:
        counts[key] = counts.get(key, 0) + 1
    return counts


SHIPPED = fallback.terms


def with_structure(text: str) -> dict[str, int]:
    return {**SHIPPED(text), **structured(text)}


def words_with_structure(text: str) -> dict[str, int]:
    return {**words(text), **structured(text)}


def quoted_normalised(text: str) -> dict[str, int]:
    """The shipped terms, the structure, and the words again with every quoted name read as one word (``q:``)."""
    plain = {"q" + k: v for k, v in words(_QUOTED.sub(" quoted ", text)).items()}
    return {**SHIPPED(text), **structured(text), **plain}


def logistic(c: float) -> Callable[..., Any]:
    def fit(documents: list[str], labels: list[str], vocabulary: list[str], idf: list[float]) -> Any:
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=c, max_iter=3000).fit(T._matrix(documents, vocabulary, idf), labels)
    return fit


def split_none(reports: list[Any]) -> list[Any]:
    """The reports, with unknown-family ones learnt as a class of their own (out-of-scope ones stay "none")."""
    out = []
    for r in reports:
        label = UNKNOWN_CLASS if r.label == T.NONE and r.scope != T.OUT_OF_SCOPE else r.label
        out.append(T.Report(r.id, r.url, r.repo, r.origin, label, r.train, r.document, r.prior, r.scope,
                            r.title_document, r.other, r.with_error))
    return out


def merge_none(held: list[Any], originals: dict[str, Any]) -> list[Any]:
    """The held-out scores with the second class of no family folded into "none" (its better score counts)."""
    out = []
    for h in held:
        scores = list(h.scores)
        if scores and UNKNOWN_CLASS in h.classes:
            i, j = h.classes.index(UNKNOWN_CLASS), h.classes.index(T.NONE)
            scores[j], scores[i] = max(scores[i], scores[j]), -1e9
        out.append(T.HeldOut(originals[h.report.id], h.classes, scores, h.similarity, h.ruled_out))
    return out


# name: (terms, SVM's C or a fit function, relabel none)
VARIANTS: dict[str, tuple[Callable[[str], dict[str, int]], Any, bool]] = {
    "shipped: words, word pairs, character n-grams; SVM C=0.5": (SHIPPED, 0.5, False),
    "+ exception class and module paths": (with_structure, 0.5, False),
    "+ those, and quoted names as one word": (quoted_normalised, 0.5, False),
    "words, word pairs, class and paths (no n-grams)": (words_with_structure, 0.5, False),
    "shipped terms, SVM C=0.1": (SHIPPED, 0.1, False),
    "shipped terms, SVM C=1.0": (SHIPPED, 1.0, False),
    "shipped terms, logistic regression C=4": (SHIPPED, logistic(4.0), False),
    "+ class and paths; unknown-family a class apart": (with_structure, 0.5, True),
}


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--variants", default="", help="comma-separated indices of VARIANTS (default: all)")
    only = {int(i) for i in parser.parse_args(argv).variants.split(",") if i}
    started = time.perf_counter()
    knowledge = load_knowledge()
    priors = knowledge.tables.get("priors")
    reports = T.load_reports(knowledge)
    originals = {r.id: r for r in reports}
    fit_svm, c_shipped = T._fit_svm, T.C
    print(f"{len(reports)} reports, {T.FOLDS} folds by repository, {T.REPEATS} fold assignments pooled; ceiling: the "
          f"most right answers at {', '.join(map(str, CEILING_AT))} wrong (mean over the assignments)")
    for i, (name, (terms, model, relabel)) in enumerate(VARIANTS.items()):
        if only and i not in only:
            continue
        fallback.terms = terms  # the trainer's and FallbackModel.vector's terms
        T._TERMS.clear()
        if callable(model):
            T._fit_svm, T.C = model, c_shipped
        else:
            T._fit_svm, T.C = fit_svm, model
        try:
            helds = [T.cross_validate(split_none(reports) if relabel else reports, priors=priors, seed=seed)
                     for seed in range(T.REPEATS)]
        finally:
            fallback.terms, T._fit_svm, T.C = SHIPPED, fit_svm, c_shipped
        if relabel:
            helds = [merge_none(held, originals) for held in helds]
        best, per = T.choose_repeated(helds)
        mean = {k: round(sum(c[k] for c in per) / len(per), 1) for k in per[0]}
        print(f"{name}")
        print(f"   chosen: threshold {best['threshold']}, least similarity {best['min_similarity']}: right "
              f"{mean['right']}, wrong {mean['wrong']}, silent {mean['silent']}, quiet {mean['quiet']}, out-of-scope "
              f"claimed {mean['out_of_scope_claimed']} of {mean['out_of_scope']}; each right/wrong "
              + " ".join(f"{c['right']}/{c['wrong']}" for c in per))
        for with_error, kind in ((True, "with an error"), (False, "title/prose alone")):
            tops = [T.ceiling(held, best["scale"], with_error, CEILING_AT) for held in helds]
            print(f"   ceiling, {kind:<18} " + ", ".join(f"{w}: {sum(t[w] for t in tops) / len(tops):g}"
                                                        for w in CEILING_AT))
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
