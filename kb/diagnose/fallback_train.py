"""Train the learned fallback (kb/diagnose/fallback.py) on the labelled real reports, in pure Python.

    python -m kb.diagnose.fallback_train              # cross-validate, then write tables/fallback-model.json.gz
    python -m kb.diagnose.fallback_train --check      # the same, but only say whether the shipped model is current

The reports are the corpus (corpus/reports-*.jsonl, corpus/README.md) and the dev set
(tests/fixtures/diagnose/manifest.toml), both in the checkout only. Each is labelled with one of kb's families,
or "none": out-of-scope reports and unknown-family ones (the classifier must learn to abstain). Unknown-family
reports whose cause is that the report shows no error (``error-not-visible``, ``error-not-shown``) carry no signal
and are left out of training; they stay in the evaluation, where the answer they should get is silence.

Every report goes through kb's own parse (the same ``document_text`` the fallback reads at run time), once,
with the fallback off: that also says which reports a signature or prior already answers, the ones the
fallback never sees. Cross-validation groups the reports by repository (a repository's reports are all held
out together); the vote size ``k``, the nearest report's least similarity, the weight of a "none" vote and the
vote share are chosen so that the fallback's wrong answers stay at most ``MAX_WRONG`` of the held-out reports
it is asked about, with the most right answers net of wrong ones. The model then learns from every report.

Pure Python (no scikit-learn): the vectoriser is ``fallback.terms``/``fallback.weigh``, the very code that reads
the model at run time, so training and answering cannot disagree on a feature; the data is a thousand reports,
and training with cross-validation takes well under a minute.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from kb.diagnose import fallback
from kb.diagnose.diagnosis import diagnose_chunks
from kb.diagnose.priors import LineEvidence
from kb.diagnose.stream import chunk_lines
from kb.knowledge.paths import CHECKOUT_ROOT

NONE = fallback.NONE
OUT_OF_SCOPE, UNKNOWN = "out-of-scope", "unknown-family"
NO_SIGNAL_CAUSES = ("error-not-visible", "error-not-shown")
FOLDS = 5
MAX_WRONG = 0.02  # wrong answers, as a share of the held-out reports the fallback is asked about
MIN_DF = 2  # a term in a single report cannot bring two reports closer
KEEP_TERMS = 160  # the heaviest terms of each report's vector are stored (the model stays well under 1 MB)
NEIGHBOURS_KEPT = 15  # cross-validation keeps this many neighbours per report, enough for every k tried
K_GRID = (1, 3, 5, 7, 10, 15)
MIN_SIMILARITY_GRID = (0.0, 0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)
SHARE_GRID = tuple(round(0.4 + 0.05 * i, 2) for i in range(13))  # 0.40 .. 1.00
NONE_WEIGHT_GRID = (1.0, 2.0, 3.0, 5.0)
CALIBRATION_BINS = (0.6, 0.8, 1.0)  # lower bounds of the share bins above the threshold
MIN_BIN = 10  # held-out answers a calibration bin needs to stand alone
CORPUS = Path(CHECKOUT_ROOT) / "corpus"


class Report:
    """One labelled report: where it is from, its label, the document the fallback reads, and what kb
    answers without the fallback (``prior``: a family or case key, or None)."""

    __slots__ = ("id", "url", "repo", "origin", "label", "train", "document", "prior", "expect")

    def __init__(self, id: str, url: str, repo: str, origin: str, label: str, train: bool,  # noqa: A002
                 document: str, prior: str | None, expect: str = NONE) -> None:
        self.id, self.url, self.repo, self.origin, self.label = id, url, repo, origin, label
        self.train, self.document, self.prior, self.expect = train, document, prior, expect


def repo_of(url: str) -> str:
    """``owner/name`` of a GitHub URL (lower case), else the host."""
    m = re.match(r"https?://(?:www\.)?github\.com/([^/]+)/([^/#?]+)", url)
    if m:
        return f"{m.group(1)}/{m.group(2)}".lower()
    return re.sub(r"^https?://", "", url).split("/", 1)[0].lower()


def parse(lines: list[str], knowledge: Any) -> tuple[str | None, str | None, str]:
    """kb's answer without the fallback (top answer's family, its key with kind) and the fallback's document,
    from one pass of the pipeline. The head comes from the same LineEvidence the pipeline streams through."""
    head = LineEvidence(None)
    diagnosis = diagnose_chunks(head.scan(chunk_lines(lines)), knowledge)
    answers = diagnosis.answers
    top = answers[0] if answers else None
    document = fallback.document_text(head.head, diagnosis.root_error, diagnosis.errors)
    return (top.family if top else None), (f"{top.kind}:{top.match.entry.key}" if top else None), document


def corpus_records() -> list[dict[str, Any]]:
    records = []
    for path in sorted(CORPUS.glob("reports-*.jsonl")):
        with open(path, encoding="utf-8") as handle:
            records += [json.loads(line) for line in handle if line.strip()]
    return records


def load_reports(knowledge: Any, with_dev: bool = True) -> list[Report]:
    """Every labelled report of the corpus and (``with_dev``) the dev set, parsed with the fallback off."""
    kept = fallback._MODEL[:]
    fallback.use_model(None)  # what kb answers without the fallback
    try:
        return _load_reports(knowledge, with_dev)
    finally:
        fallback._MODEL[:] = kept


def _load_reports(knowledge: Any, with_dev: bool) -> list[Report]:
    from kb.knowledge.examples import devset_manifest, load_examples

    families = {f.key for f in knowledge.families}
    reports = []
    for r in corpus_records():
        family, cause = r["label"]["family"], r["label"]["cause"]
        label = family if family in families else NONE
        train = not (family == UNKNOWN and cause in NO_SIGNAL_CAUSES)
        text = r["error"] if r["error"].strip() else r["title"]
        prior_family, _, document = parse(text.splitlines(keepends=True), knowledge)
        reports.append(Report(r["id"], r["url"], r["repo"].lower(), "corpus", label, train, document, prior_family))
    if with_dev:
        for e in load_examples(devset_manifest()):
            label = e["family"] if e.get("family") in families else NONE
            with open(e["path"], encoding="utf-8", errors="replace") as handle:
                prior_family, _, document = parse(handle.readlines(), knowledge)
            reports.append(Report("dev:" + e["file"], e["source"], repo_of(e["source"]), "dev", label, True,
                                  document, prior_family, e["expect"]))
    return reports


# ---- fitting -------------------------------------------------------------------------------------------------

def fit(reports: list[Report]) -> dict[str, Any]:
    """The vocabulary, idf and stored vectors of the training reports (``train`` set), with their labels and
    URLs. Terms in fewer than MIN_DF reports are dropped; each vector keeps its KEEP_TERMS heaviest terms and is
    normalised again. The vectors are stored by term (``postings``: for each term, the reports that hold it and
    their weights), the form the model searches: nothing to rebuild when `kb diagnose` loads it."""
    train = [r for r in reports if r.train]
    counts = [fallback.terms(r.document) for r in train]
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    n = len(train)
    vocabulary = sorted(t for t, d in df.items() if d >= MIN_DF)
    index = {t: i for i, t in enumerate(vocabulary)}
    idf = [round(math.log((1 + n) / (1 + df[t])) + 1.0, 4) for t in vocabulary]
    vectors = []
    for c in counts:
        v = fallback.weigh(c, index, idf)
        top = sorted(v.items(), key=lambda x: -x[1])[:KEEP_TERMS]
        norm = math.sqrt(sum(w * w for _, w in top)) or 1.0
        top.sort()
        vectors.append([[t for t, _ in top], [round(w / norm, 3) for _, w in top]])
    postings: dict[int, list[list[Any]]] = {}  # stored inverted, as the model reads it: term -> [reports, weights]
    for doc, (terms_, weights) in enumerate(vectors):
        for t, w in zip(terms_, weights):
            entry = postings.setdefault(t, [[], []])
            entry[0].append(doc)
            entry[1].append(w)
    used = sorted(postings)  # terms that survive in some stored vector
    return {"vocabulary": [vocabulary[t] for t in used], "idf": [idf[t] for t in used],
            "labels": [r.label for r in train], "urls": [r.url for r in train],
            "postings": [postings[t] for t in used]}


def as_model(data: dict[str, Any], settings: dict[str, Any] | None = None) -> fallback.FallbackModel:
    """A model of fitted data: with ``settings`` (SETTINGS), else keeping NEIGHBOURS_KEPT neighbours to choose from."""
    settings = settings or {"k": NEIGHBOURS_KEPT, "threshold": 0.0, "min_similarity": 0.0, "none_weight": 1.0}
    return fallback.FallbackModel({**data, **settings, "calibration": [], "held_out": {}})


# ---- cross-validation by repository -----------------------------------------------------------------------------

def folds_by_repo(reports: list[Report], folds: int = FOLDS) -> dict[str, int]:
    """Each repository's fold: the largest repositories first, each to the fold with the fewest reports so far
    (ties by name), so folds are of about equal size and a repository is never split."""
    sizes = Counter(r.repo for r in reports)
    load = [0] * folds
    out = {}
    for repo, size in sorted(sizes.items(), key=lambda x: (-x[1], x[0])):
        f = min(range(folds), key=lambda i: (load[i], i))
        out[repo] = f
        load[f] += size
    return out


class HeldOut:
    """One held-out report the fallback is asked about (no signature or prior answered it) and its neighbours
    in the model trained without its repository: (similarity, label), nearest first."""

    __slots__ = ("report", "neighbours")

    def __init__(self, report: Report, neighbours: list[tuple[float, str]]) -> None:
        self.report, self.neighbours = report, neighbours


def cross_validate(reports: list[Report], folds: int = FOLDS) -> list[HeldOut]:
    """The neighbours of every report the fallback would be asked about, each from a model trained on the
    other folds' repositories."""
    fold_of = folds_by_repo(reports, folds)
    out = []
    for f in range(folds):
        train = [r for r in reports if fold_of[r.repo] != f]
        model = as_model(fit(train))
        for r in reports:
            if fold_of[r.repo] != f or r.prior is not None:
                continue
            near = model.neighbours(model.vector(r.document))
            out.append(HeldOut(r, [(s, model.labels[d]) for s, d in near if s > 0]))
    return out


def decide(neighbours: list[tuple[float, str]], settings: dict[str, Any]) -> tuple[str | None, float]:
    """The fallback's decision from a neighbour list (similarity, label), nearest first, by the code the model
    runs (fallback.vote, fallback.decide): (the family or None, the winner's share of the vote)."""
    near = neighbours[: settings["k"]]
    label, share = fallback.vote(near, settings["none_weight"])
    ok = fallback.decide(label, share, near, settings["threshold"], settings["min_similarity"])
    return (label if ok else None), share


def tally(held: list[HeldOut], settings: dict[str, Any]) -> dict[str, int]:
    """Right (the labelled family), wrong (another family, or any family for a report of none), silent (no
    answer for a report with a family) and quiet (no answer for a report of none) on the held-out reports."""
    c = {"asked": len(held), "right": 0, "wrong": 0, "silent": 0, "quiet": 0}
    for h in held:
        got, _ = decide(h.neighbours, settings)
        truth = h.report.label
        key = ("right" if got == truth else "wrong") if got else ("silent" if truth != NONE else "quiet")
        c[key] += 1
    return c


def grid() -> list[dict[str, Any]]:
    return [{"k": k, "min_similarity": m, "threshold": t, "none_weight": w}
            for k in K_GRID for m in MIN_SIMILARITY_GRID for t in SHARE_GRID for w in NONE_WEIGHT_GRID]


def choose(held: list[HeldOut]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Among the settings whose wrong answers stay at most MAX_WRONG of the reports asked, the one with the most
    right answers net of wrong ones (an answer is worth giving where held-out answers were right more often
    than wrong; ties: fewer answers, then the stricter settings); and every setting tried, with its counts."""
    tried = [{**g, **tally(held, g)} for g in grid()]
    allowed = [t for t in tried if t["wrong"] <= MAX_WRONG * max(t["asked"], 1)]
    best = max(allowed, key=lambda t: (t["right"] - t["wrong"], -t["wrong"], t["threshold"], t["min_similarity"],
                                       t["none_weight"], -t["k"]))
    return best, tried


def settings_of(row: dict[str, Any]) -> dict[str, Any]:
    return {key: row[key] for key in ("k", "threshold", "min_similarity", "none_weight")}


def calibration(held: list[HeldOut], settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Per bin of the vote share at or above the threshold: how many held-out answers fell in it and how many
    were right. A bin with fewer than MIN_BIN answers joins the one below it (a record of 1 of 1 says nothing).
    The fallback quotes its bin's record as its confidence."""
    answers = []
    for h in held:
        got, share = decide(h.neighbours, settings)
        if got:
            answers.append((share, got == h.report.label))
    threshold = settings["threshold"]
    rows: list[dict[str, Any]] = []
    for low in [threshold] + [b for b in CALIBRATION_BINS if b > threshold]:
        rows.append({"from": low, "answered": 0, "right": 0})
    for share, right in answers:
        row = [r for r in rows if share >= r["from"]][-1]
        row["answered"] += 1
        row["right"] += right
    merged: list[dict[str, Any]] = []
    for row in rows:
        if merged and row["answered"] < MIN_BIN:
            merged[-1]["answered"] += row["answered"]
            merged[-1]["right"] += row["right"]
        else:
            merged.append(dict(row))
    while len(merged) > 1 and merged[0]["answered"] < MIN_BIN:  # a thin first bin joins the next
        first = merged.pop(0)
        merged[0].update({"from": first["from"], "answered": merged[0]["answered"] + first["answered"],
                          "right": merged[0]["right"] + first["right"]})
    return merged


def train(knowledge: Any, with_dev: bool = True, reports: list[Report] | None = None) -> tuple[dict[str, Any], list[HeldOut]]:
    """Cross-validate, choose the settings, and fit the model on every training report: the model's data."""
    reports = reports if reports is not None else load_reports(knowledge, with_dev)
    held = cross_validate(reports)
    best, _ = choose(held)
    settings = settings_of(best)
    data = fit(reports)
    data.update({
        "format": 1,
        **settings,
        "calibration": calibration(held, settings),
        "held_out": {key: best[key] for key in ("asked", "right", "wrong", "silent", "quiet")} | {"folds": FOLDS},
        "trained_on": dict(Counter(r.origin for r in reports if r.train)),
    })
    return data, held


def model_summary(data: dict[str, Any]) -> str:
    h = data["held_out"]
    return (f"{len(data['labels'])} reports ({data['trained_on']}), {len(data['vocabulary'])} terms; k={data['k']}, "
            f"share >= {data['threshold']}, similarity >= {data['min_similarity']}, none votes x{data['none_weight']}; "
            f"held out by repository: "
            f"{h['asked']} asked, right {h['right']}, wrong {h['wrong']}, silent {h['silent']}, quiet {h['quiet']}")


def write_model(data: dict[str, Any], path: str) -> int:
    """Write the model as gzip'd JSON (deterministic bytes: no timestamp); its size in bytes."""
    import gzip

    raw = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode("utf-8")
    with open(path, "wb") as handle, gzip.GzipFile(fileobj=handle, mode="wb", mtime=0, filename="") as gz:
        gz.write(raw)
    return os.path.getsize(path)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from kb.knowledge.registry import load_knowledge
    from kb.knowledge.tables import FALLBACK_MODEL, read_fallback_model, table_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help=f"where to write the model (default tables/{FALLBACK_MODEL})")
    parser.add_argument("--check", action="store_true", help="only say whether the shipped model is current")
    ns = parser.parse_args(argv)
    path = ns.out or table_path(FALLBACK_MODEL)
    data, _ = train(load_knowledge())
    if ns.check:
        try:
            current = read_fallback_model(path)
        except OSError:
            current = None
        same = current == json.loads(json.dumps(data, sort_keys=True, ensure_ascii=False))
        print(f"{path}: {'current' if same else 'out of date: run python -m kb.diagnose.fallback_train'}")
        return 0 if same else 1
    size = write_model(data, path)
    print(f"wrote {path} ({size} bytes): {model_summary(data)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
