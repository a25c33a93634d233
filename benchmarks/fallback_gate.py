"""Would the learned fallback answer more titles if it were asked only about reports that look like the stack's
failures?  (issue #24, turn 41: titles41)

    python benchmarks/fallback_gate.py [--cache FILE]

The shipped trainer's cross-validation grouped by repository (scripts/fallback_train.py: its reports, folds_by_repo
with seeds 0..REPEATS-1, choose_repeated pooled, wrong <= 2% of the reports asked, out-of-scope claimed <= 2%, right
less 2 x wrong), then the same choice when a gate silences the fallback before its model is asked. The gates read the
report's first three lines (the title, for a title-only report) with tables/priors.toml's own word lists: [stack] (a
library, a method, a model people fine-tune), [failure] (something failed); and whether kb's parse found an error.
For each: the chosen setting, right / wrong / out-of-scope claimed (mean over the assignments), the answers by kind
(E: with an error, T: title or prose alone; summed over the assignments), and for titles the ceiling (the most right
answers any threshold gives at 0, 1, 2, 5, 10 wrong, first assignment: fallback_train.ceiling, optimistic).

The held-out scores take about 10 minutes on 2 shared cores; ``--cache`` keeps them (pickle) between runs (clear it
when the corpus, the dev set or the trainer changes). Needs scikit-learn (the dev extra).
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import fallback_train as T  # noqa: E402  (scripts/fallback_train.py)

from kb.knowledge.registry import load_knowledge  # noqa: E402


def held_out_scores(cache: str | None) -> list[list[T.HeldOut]]:
    if cache and Path(cache).exists():
        with open(cache, "rb") as f:
            return pickle.load(f)[1]
    reports = T.load_reports(load_knowledge())
    helds = [T.cross_validate(reports, seed=s) for s in range(T.REPEATS)]
    if cache:
        with open(cache, "wb") as f:
            pickle.dump((reports, helds), f)
    return helds


def gated(helds: list[list[T.HeldOut]], keep: Callable[[T.Report], bool]) -> list[list[T.HeldOut]]:
    """The held-out scores with the fallback silenced (no scores: its verdict is none) where ``keep`` is false."""
    return [[h if keep(h.report) else T.HeldOut(h.report, h.classes, [], 0.0, h.ruled_out) for h in held]
            for held in helds]


def line(name: str, helds: list[list[T.HeldOut]]) -> str:
    best, per = T.choose_repeated(helds)
    calibration = (best["scale"], best["none_bias"])
    kinds: Counter = Counter()
    for held in helds:
        for h in held:
            got = T.answer(h, calibration, best["threshold"], best["min_similarity"])
            if got:
                scope = "oos" if h.report.scope == T.OUT_OF_SCOPE else "wrong"
                kinds[f"{'E' if h.report.with_error else 'T'} {'right' if got == h.report.label else scope}"] += 1

    def mean(k: str) -> float:
        return sum(p[k] for p in per) / len(per)

    return (f"{name:<40} threshold {best['threshold']:.2f}, least similarity {best['min_similarity']}, scale "
            f"{best['scale']}, none bias {best['none_bias']}: right {mean('right'):.1f}, wrong {mean('wrong'):.1f}, "
            f"out-of-scope claimed {mean('out_of_scope_claimed'):.1f} of {mean('out_of_scope'):.0f}; asked "
            f"{mean('asked'):.0f}; answers by kind {dict(sorted(kinds.items()))}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cache", default=None, help="a pickle of the held-out scores, made when missing")
    args = parser.parse_args(argv)
    table = load_knowledge().tables.get("priors")
    stack = re.compile(table["stack"]["words"], re.IGNORECASE)
    failure = re.compile(table["failure"]["words"], re.IGNORECASE)

    def head(r: T.Report) -> str:
        return "\n".join(r.document.splitlines()[:3])

    def named(r: T.Report) -> bool:
        return bool(stack.search(head(r)))

    def failed(r: T.Report) -> bool:
        return bool(stack.search(head(r)) and failure.search(head(r)))

    helds = held_out_scores(args.cache)
    gates: list[tuple[str, Callable[[T.Report], bool]]] = [
        ("shipped (no gate)", lambda r: True),
        ("head names the stack", named),
        ("head names the stack and a failure", failed),
        ("errors only", lambda r: r.with_error),
        ("titles only", lambda r: not r.with_error),
        ("titles naming the stack", lambda r: not r.with_error and named(r)),
        ("titles naming the stack and a failure", lambda r: not r.with_error and failed(r)),
        ("errors, or titles: stack and failure", lambda r: r.with_error or failed(r)),
    ]
    for name, keep in gates:
        print(line(name, gated(helds, keep)), flush=True)
    for name, keep in [("titles", lambda r: not r.with_error),
                       ("titles naming the stack and a failure", lambda r: not r.with_error and failed(r))]:
        hs = [h for h in helds[0] if keep(h.report)]
        print(f"ceiling, {name}: asked {len(hs)}, with a family {sum(h.report.label != T.NONE for h in hs)}, out of "
              f"scope {sum(h.report.scope == T.OUT_OF_SCOPE for h in hs)}; most right at n wrong "
              f"{T.ceiling(hs, 2.0, False, (0, 1, 2, 5, 10))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
