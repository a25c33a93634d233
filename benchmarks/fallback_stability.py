"""How much the learned fallback's chosen settings move with the fold assignment and with the corpus.

    python benchmarks/fallback_stability.py [--seeds 30] [--repeats 5] [--drop gh-mix-10,gh-mix-09,...] [--cache DIR]

scripts/fallback_train.py chooses the softmax's scale, the none bias, the threshold and the least similarity on the
held-out scores of a cross-validation grouped by repository. This script repeats that cross-validation on other
assignments of repositories to folds (folds_by_repo with a seed: as balanced, never splitting a repository) and on the
corpus without one batch at a time, and prints what each rule chooses: the trainer's before turn 37 (one assignment,
right net of wrong), the trainer's now (choose_repeated: REPEATS assignments pooled, a wrong answer counted
WRONG_COST times) and the two changes alone; with the held-out right/wrong/silent, and how many of the reports asked
the model trained on every report answers differently from one choice to another (what a retrain flips). The
held-out scores of each cross-validation are kept under ``--cache`` (pickles keyed by the corpus, the dev set's
manifest and the priors table; clear it when the fitting or the features change), so the rules are compared on the
same scores. Needs scikit-learn (the dev extra); CPU only; about 25 minutes on 2 shared cores with an empty cache.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import fallback_train as T  # noqa: E402  (scripts/fallback_train.py)


def _fingerprint() -> str:
    """The corpus, the dev set's manifest and the priors table: a cache made from other inputs is not reused (the
    fitting itself is not in the key: clear the cache when fit() or the features change)."""
    h = hashlib.sha1()
    for path in sorted((REPO / "corpus").glob("reports-*.jsonl")) + [REPO / "tests/fixtures/diagnose/manifest.toml",
                                                                      REPO / "tables/priors.toml"]:
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _cached(cache: Path, key: str, make: Any) -> Any:
    path = cache / f"{key}.pickle"
    if path.exists():
        with open(path, "rb") as handle:
            return pickle.load(handle)
    value = make()
    with open(path, "wb") as handle:
        pickle.dump(value, handle)
    return value


def _line(best: dict[str, Any]) -> str:
    return (f"scale {best['scale']:>4}, none bias {best['none_bias']:>4}, threshold {best['threshold']:.2f}, "
            f"least similarity {best['min_similarity']}: right {best['right']:>4}, wrong {best['wrong']:>3}, "
            f"silent {best['silent']:>5}, out-of-scope claimed {best['out_of_scope_claimed']}")


OLD_NONE_BIAS_GRID = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5)  # the trainer's before turn 37


def _choose(helds: list[list[T.HeldOut]], rule: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, int]]]:
    """T.choose_repeated under ``rule``: its wrong_cost, and its none bias grid (``bias_grid``)."""
    kept = T.NONE_BIAS_GRID
    T.NONE_BIAS_GRID = rule["bias_grid"]
    try:
        return T.choose_repeated(helds, rule["wrong_cost"])
    finally:
        T.NONE_BIAS_GRID = kept


def _mean(best: dict[str, Any], per: list[dict[str, int]]) -> dict[str, Any]:
    """The pooled choice with its counts as the mean over the assignments pooled."""
    return best | {k: round(sum(c[k] for c in per) / len(per), 1) for k in per[0]}


def _spread(values: list[float]) -> str:
    return (f"min {min(values):.2f}, median {statistics.median(values):.2f}, max {max(values):.2f}"
            + (f", sd {statistics.stdev(values):.3f}" if len(values) > 1 else ""))


def shipped_scores(reports: list[T.Report], priors: Any) -> list[T.HeldOut]:
    """Every report asked, scored by the model trained on every report (what the shipped model answers, before its
    scale, none bias, threshold and least similarity are chosen)."""
    model = T.as_model(T.fit(reports))
    out = []
    for r in reports:
        if r.prior is not None:
            continue
        vector = model.vector(r.document)
        scores = model.scores(vector) if vector else []
        similarity = 0.0
        if scores:
            family = max((i for i, c in enumerate(model.classes) if c != T.NONE), key=lambda i: (scores[i], -i))
            near = model.nearest(vector, model.classes[family], 1)
            similarity = near[0][0] if near else 0.0
        out.append(T.HeldOut(r, model.classes, scores, similarity, frozenset(T.fallback.ruled_out(r.document, priors))))
    return out


def _flips(shipped: list[T.HeldOut], picks: list[dict[str, Any]]) -> int:
    """Reports whose answer is not the same under every one of the chosen settings."""
    return sum(len({T.answer(h, (c["scale"], c["none_bias"]), c["threshold"], c["min_similarity"]) for c in picks}) > 1
               for h in shipped)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="fold assignments drawn (seeds 0..N-1)")
    parser.add_argument("--drop", default="gh-mix-10,gh-mix-09,gh-period-35,gh-stack-34,gh-mix-08",
                        help="batches left out one at a time")
    parser.add_argument("--repeats", type=int, default=T.REPEATS, help="assignments the repeated rule pools")
    parser.add_argument("--cache", default="/tmp/kb-fallback-stability")
    ns = parser.parse_args(argv)
    started = time.perf_counter()
    cache = Path(ns.cache) / _fingerprint()
    cache.mkdir(parents=True, exist_ok=True)
    from kb.knowledge.registry import load_knowledge

    knowledge = load_knowledge()
    priors = knowledge.tables.get("priors")
    reports = _cached(cache, "reports", lambda: T.load_reports(knowledge))
    batch_of = {r["id"]: r.get("batch", "") for r in T.corpus_records()}
    print(f"{len(reports)} reports, {len({r.repo for r in reports})} repositories; cache {cache}")

    def held(key: str, rs: list[T.Report], seed: int | None) -> list[T.HeldOut]:
        t0 = time.perf_counter()
        out = _cached(cache, key, lambda: T.cross_validate(rs, priors=priors, seed=seed))
        print(f"  [{key}: {len(out)} asked, {time.perf_counter() - t0:.0f} s]", file=sys.stderr, flush=True)
        return out

    seeds = list(range(ns.seeds))
    by_seed = {s: held(f"seed{s}", reports, s) for s in seeds}
    shipped = _cached(cache, "shipped", lambda: shipped_scores(reports, priors))
    old = {"wrong_cost": 1.0, "bias_grid": OLD_NONE_BIAS_GRID}  # the rule before turn 37
    new = {"wrong_cost": T.WRONG_COST, "bias_grid": T.NONE_BIAS_GRID}
    rules = [("before: 1 assignment, right - wrong, none bias in steps of 0.25", 1, old),
             (f"{ns.repeats} assignments pooled, right - wrong, steps of 0.25", ns.repeats, old),
             (f"1 assignment, right - {T.WRONG_COST:g} x wrong, steps of 0.25", 1, old | {"wrong_cost": T.WRONG_COST}),
             (f"{ns.repeats} assignments pooled, right - {T.WRONG_COST:g} x wrong, steps of 0.25", ns.repeats,
              old | {"wrong_cost": T.WRONG_COST}),
             (f"after: {ns.repeats} assignments pooled, right - {T.WRONG_COST:g} x wrong, none bias in steps of 0.05",
              ns.repeats, new)]
    print("\n1. the choice on disjoint sets of fold assignments (seeds 0..N-1 in sets of R); held out: the mean over")
    print("   every assignment of the choice's right/wrong/silent; shipped answers that differ: reports asked whose")
    print("   answer by the model trained on every report differs between the choices of the sets")
    finals = {}
    for name, r, rule in rules:
        groups = [seeds[i:i + r] for i in range(0, len(seeds) - r + 1, r)]
        picks = [_choose([by_seed[s] for s in g], rule)[0] for g in groups]
        finals[name] = picks
        print(f"   {name} ({len(groups)} sets)")
        for key in ("threshold", "min_similarity", "scale", "none_bias"):
            print(f"     {key:>15}: {_spread([float(c[key]) for c in picks])}")
        ev = [[T.tally(by_seed[s], (c["scale"], c["none_bias"]), c["threshold"], c["min_similarity"]) for s in seeds]
              for c in picks]
        for key in ("right", "wrong", "silent", "out_of_scope_claimed"):
            print(f"     {key:>15}: {_spread([statistics.mean(t[key] for t in e) for e in ev])} (per set: mean over "
                  "every assignment)")
        print(f"     shipped answers that differ between sets: {_flips(shipped, picks)} of {len(shipped)} asked")
        thresholds = " ".join(f"{c['threshold']:.2f}/{c['min_similarity']}" for c in picks)
        print(f"     threshold/least similarity of each set: {thresholds}")

    trainer_seeds = list(range(ns.repeats))
    print("\n2. the corpus without one batch: before, the trainer before turn 37 (its one assignment, folds_by_repo without")
    print(f"   a seed); after, the trainer now (seeds {trainer_seeds}; held out: the mean over them); shipped answers that")
    print("   differ: reports asked whose answer by the model trained on every report differs from that at the choice")
    print("   on all batches")
    base_old, _ = _choose([held("base", reports, None)], old)
    base_new, per = _choose([by_seed[s] for s in trainer_seeds], new)
    print(f"   all batches\n     before: {_line(base_old)}\n     after:  {_line(_mean(base_new, per))}")
    for batch in [b for b in ns.drop.split(",") if b]:
        rs = [r for r in reports if batch_of.get(r.id) != batch]
        if len(rs) == len(reports):
            print(f"   {batch}: not in the corpus")
            continue
        single, _ = _choose([held(f"drop-{batch}-base", rs, None)], old)
        rep, per = _choose([held(f"drop-{batch}-seed{s}", rs, s) for s in trainer_seeds], new)
        print(f"   without {batch} ({len(reports) - len(rs)} reports)\n"
              f"     before: {_line(single)}; shipped answers that differ {_flips(shipped, [single, base_old])}\n"
              f"     after:  {_line(_mean(rep, per))}; shipped answers that differ {_flips(shipped, [rep, base_new])}")
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
