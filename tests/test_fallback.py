"""The learned fallback (kb/diagnose/fallback.py, tables/fallback-model.json.gz, trained by
scripts/fallback_train.py): it answers only when no signature and no prior did, from a linear model of labelled
reports, with its probability, at low confidence, with the nearest reports' URLs as evidence; it stays silent on
other software's errors; run time computes exactly the scores training fitted; and `kb diagnose` does not even
import it for an input a signature answers."""

from __future__ import annotations

import copy
import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from kb.diagnose import fallback
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.diagnose.stream import parse
from kb.knowledge.model import KnowledgeError
from kb.knowledge.registry import load_knowledge
from kb.knowledge.tables import FALLBACK_MODEL, read_fallback_model, table_path
from kb.render.diagnosis import format_diagnosis

REPO = Path(__file__).resolve().parent.parent


def _trainer():
    """scripts/fallback_train.py as a module (it is a script: training needs scikit-learn, the dev extra)."""
    spec = importlib.util.spec_from_file_location("fallback_train", REPO / "scripts" / "fallback_train.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["fallback_train"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


T = _trainer()

# A report's paraphrase of a labelled corpus report's error that no signature or prior answers (trl#2613, api-drift:
# Python's own wording, with the colon before the names, is api-drift's signature positional-stack-class since turn 36;
# trl#2445's "DPOTrainer.log() takes 2 positional arguments but 3 were given" is a prior's since gh-stack-34). With the
# threshold the trainer chooses by cross-validation (tables/fallback-model.json.gz) the fallback answers little beyond
# such repeats of labelled reports: benchmarks/results/fallback-cv.txt has its held-out figures. (Each retrain moves the
# borderline ones: the model retrained at turn 39's merge reads RewardTrainer's and SFTTrainer's missing
# 'processing_class' as "none", 54% and 40%; SFTTrainer's missing 'max_seq_length' as api-drift, 43% against a threshold
# of 35%; the model retrained at turn 41's end, with drift-59 in the dev set, reads that one as "none", 41% against 37%,
# and SFTConfig's missing 'max_seq_length' as api-drift, 40%; the model retrained at turn 42's end, with turn 42's batches,
# reads that one as "none", 39% against 36%, and SFTTrainer's missing 'peft_config' as api-drift; the model of turn 43,
# which keeps 30000 terms, as api-drift, 77% against a threshold of 75%.)
HELD_OUT_LIKE = "TypeError: SFTTrainer.__init__() missing 1 required positional argument 'peft_config'\n"
# The model shipped at turn 43 (4,034 reports, threshold 0.77: wrong answers within 2% of its answers) finds it
# api-drift at 68%, below its threshold: it answers no kb-family report of the dev corpus that no signature answers
# (searched: every report's error, with and without its title, and 300 trainer-argument variants). The tests of the
# answer's path and screen below lower the threshold of a copy of it (ANSWERING) so that they still run that path.
ANSWERING = 0.5
# (turn 49) the model retrained on 5,848 reports (threshold 0.78) finds it api-drift at 59%: the copy's threshold went
# from 0.6 to 0.5 so the answer's path still runs
# (turn 48) the model retrained on 5,704 reports still finds it api-drift (65%), but its nearest api-drift report is
# only 0.18 alike (under the shipped least similarity, 0.3): the copy lowers that bound too, so the path still runs
ANSWERING_SIMILARITY = 0.15

UNRELATED = {
    "django": """Traceback (most recent call last):
  File "/srv/app/venv/lib/python3.11/site-packages/django/core/handlers/exception.py", line 55, in inner
    response = get_response(request)
  File "/srv/app/venv/lib/python3.11/site-packages/django/core/handlers/base.py", line 197, in _get_response
    response = wrapped_callback(request, *callback_args, **callback_kwargs)
  File "/srv/app/shop/views.py", line 42, in checkout
    order = Order.objects.get(pk=order_id)
  File "/srv/app/venv/lib/python3.11/site-packages/django/db/models/query.py", line 637, in get
    raise self.model.DoesNotExist(
shop.models.Order.DoesNotExist: Order matching query does not exist.
""",
    "numpy": """Traceback (most recent call last):
  File "/home/lee/analysis/stats.py", line 18, in <module>
    total = weights * values
ValueError: operands could not be broadcast together with shapes (3,4) (5,)
""",
    "javascript": """TypeError: Cannot read properties of undefined (reading 'map')
    at ProductList (webpack-internal:///./src/components/ProductList.jsx:23:18)
    at renderWithHooks (webpack-internal:///./node_modules/react-dom/cjs/react-dom.development.js:16305:18)
    at beginWork (webpack-internal:///./node_modules/react-dom/cjs/react-dom.development.js:21587:16)
""",
    "c++ compiler": """src/geometry/mesh.cpp: In member function 'void Mesh::build(const std::vector<Vertex>&)':
src/geometry/mesh.cpp:87:23: error: no matching function for call to 'std::vector<int>::push_back(const Vertex&)'
   87 |     indices.push_back(v);
      |     ~~~~~~~~~~~~~~~~~~^~~
make[2]: *** [CMakeFiles/mesh.dir/build.make:76: CMakeFiles/mesh.dir/src/geometry/mesh.cpp.o] Error 1
""",
}


@pytest.fixture(autouse=True)
def shipped_model():
    """Every test starts from the shipped model (a test that swaps it puts it back)."""
    fallback._MODEL.clear()
    yield
    fallback._MODEL.clear()


def matches(text: str) -> list[dict]:
    return diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))["matches"]


def test_the_model_loads_through_the_knowledge_and_holds_no_report_text() -> None:
    path = table_path(FALLBACK_MODEL)
    assert os.path.getsize(path) < 2 * 1024 * 1024  # 30000 terms since turn 43: 1.3 MB
    data = read_fallback_model()
    assert set(data) == {"format", "classes", "intercepts", "vocabulary", "idf", "weights", "scale", "threshold",
                         "min_similarity", "calibration", "held_out", "trained_on", "labels", "urls", "vectors"}
    assert data["format"] == fallback.FORMAT
    families = {f.key for f in load_knowledge().families}
    assert set(data["classes"]) <= families | {fallback.NONE} and fallback.NONE in data["classes"]
    assert set(data["labels"]) <= families  # evidence reports are of a family, never "none"
    assert all(u.startswith("https://") and " " not in u for u in data["urls"])
    # terms are words, pairs of words and n-grams of at most 5 characters: no sentence of a report is in the model
    assert all(len(t) <= 5 for t in data["vocabulary"] if not t.startswith(("w:", "b:")))
    assert all(t.count(" ") == 1 for t in data["vocabulary"] if t.startswith("b:"))
    assert all(len(w) % 2 == 0 and all(0 <= int(c) < len(data["classes"]) for c in w[::2]) for w in data["weights"])
    assert 0 < data["threshold"] <= T.NEVER and data["scale"] > 0
    model = fallback.load_model()
    assert model is not None and len(model.urls) == len(data["urls"])


def test_a_broken_model_file_is_refused(tmp_path) -> None:
    bad = tmp_path / "m.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(KnowledgeError, match="not a gzip'd JSON model"):
        read_fallback_model(str(bad))
    import gzip

    with gzip.open(tmp_path / "n.json.gz", "wt") as handle:
        handle.write('{"vocabulary": []}')
    with pytest.raises(KnowledgeError, match="lacks"):
        read_fallback_model(str(tmp_path / "n.json.gz"))


@pytest.fixture
def answering() -> Iterator[fallback.FallbackModel]:
    """The shipped model, a copy of it whose threshold is ANSWERING (and least similarity ANSWERING_SIMILARITY), in use
    for one test."""
    fallback._MODEL.clear()
    shipped = fallback.load_model()
    assert shipped is not None
    model = copy.copy(shipped)
    model.threshold = min(shipped.threshold, ANSWERING)
    model.min_similarity = min(shipped.min_similarity, ANSWERING_SIMILARITY)
    fallback.use_model(model)
    yield model
    fallback._MODEL.clear()


def test_the_shipped_threshold_is_what_the_example_falls_short_of() -> None:
    fallback._MODEL.clear()
    model = fallback.load_model()
    errors = list(parse(HELD_OUT_LIKE.splitlines(keepends=True)))
    verdict = model.verdict(fallback.document_text([HELD_OUT_LIKE.strip()], errors[0], errors))
    assert verdict.label == "api-drift" and ANSWERING <= verdict.probability < model.threshold
    assert matches(HELD_OUT_LIKE) == []


def test_it_answers_a_report_like_labelled_ones_when_nothing_else_does(answering: fallback.FallbackModel) -> None:
    fallback.use_model(None)
    assert matches(HELD_OUT_LIKE) == [], "a signature or prior now answers this input: pick another for the test"
    fallback.use_model(answering)
    found = matches(HELD_OUT_LIKE)
    assert len(found) == 1
    m = found[0]
    assert (m["family"], m["basis"], m["confidence"], m["signature"]) == (
        "api-drift", "family-learned", "low", "learned:linear-model")
    assert m["score"] == fallback.LEARNED_SCORE
    model = answering
    errors = list(parse(HELD_OUT_LIKE.splitlines(keepends=True)))  # the document the diagnosis builds: head and root
    verdict = model.verdict(fallback.document_text([HELD_OUT_LIKE.strip()], errors[0], errors))
    shown = f"{verdict.probability:.0%} probable"
    assert m["evidence"][0].startswith(shown) and "lower-confidence" in m["evidence"][0]
    assert shown in m["why"] and "no signature" in m["why"]
    urls = [e.split(": ", 1)[1] for e in m["evidence"] if e.startswith("similar report")]
    assert urls and set(urls) <= set(model.urls)  # the nearest labelled reports, named by their own addresses
    assert m["triage"], "a family answer carries the family's triage"


def test_the_screen_shows_the_probability_and_the_nearest_report(answering: fallback.FallbackModel) -> None:
    doc = diagnosis_document(diagnose_lines(HELD_OUT_LIKE.splitlines(keepends=True), load_knowledge()))
    text = format_diagnosis(doc, width=120)
    decided = [row for row in text.splitlines() if "decided by:" in row]
    assert len(decided) == 1 and "% probable: a lower-confidence learned guess" in decided[0]
    assert any(row.strip().startswith("similar report (") and "https://github.com/" in row
               for row in text.splitlines())


def test_it_is_silent_without_a_model() -> None:
    fallback.use_model(None)
    assert matches(HELD_OUT_LIKE) == []


@pytest.mark.parametrize("name", sorted(UNRELATED))
def test_errors_of_other_software_stay_unclaimed(name: str) -> None:
    assert matches(UNRELATED[name]) == []
    model = fallback.load_model()
    _, _, document = T.parse(UNRELATED[name].splitlines(keepends=True), load_knowledge())
    assert not model.decide(model.verdict(document))  # the fallback itself abstains, not only the pipeline


def test_training_reads_the_document_the_pipeline_builds(monkeypatch) -> None:
    """The trainer's parse gives the exact text the fallback reads at run time."""
    seen: list[str] = []
    real = fallback.FallbackModel.verdict

    def spy(self, text):
        seen.append(text)
        return real(self, text)

    monkeypatch.setattr(fallback.FallbackModel, "verdict", spy)
    text = UNRELATED["numpy"] + "\nsome words after the error\n"
    matches(text)
    fallback.use_model(None)  # the trainer parses with the fallback off
    _, _, document = T.parse(text.splitlines(keepends=True), load_knowledge())
    assert len(seen) == 1 and seen == [document]


def _tiny_model(threshold: float, min_similarity: float = 0.0) -> fallback.FallbackModel:
    """Two families and none over three words: weights that make the arithmetic checkable by hand."""
    return fallback.FallbackModel({
        "classes": ["cuda-oom", "hang", fallback.NONE], "intercepts": [0.0, 0.0, 0.5],
        "vocabulary": ["w:memory", "w:stuck", "w:django"], "idf": [1.0, 1.0, 1.0],
        "weights": [[0, 2.0], [1, 2.0], [2, 3.0]], "scale": 2.0, "threshold": threshold,
        "min_similarity": min_similarity,
        "calibration": [{"from": threshold, "answered": 10, "right": 7}], "held_out": {},
        "labels": ["cuda-oom", "hang"], "urls": ["https://x/1", "https://x/2"], "vectors": [[[0], [1.0]], [[1], [1.0]]]})


def test_the_verdict_is_a_softmax_of_linear_scores_and_none_never_answers() -> None:
    model = _tiny_model(0.5)
    v = model.verdict("memory")
    # scores: cuda-oom 2.0, hang 0.0, none 0.5; times the scale 2
    expected = math.exp(4.0) / (math.exp(4.0) + math.exp(0.0) + math.exp(1.0))
    assert v.label == "cuda-oom" and v.probability == pytest.approx(expected) and model.decide(v)
    assert model.nearest(v.vector, "cuda-oom") == [(1.0, "https://x/1")] and model.nearest(v.vector, "hang") == []
    assert not _tiny_model(0.99).decide(v)  # below the threshold
    mixed = model.verdict("memory memory stuck")  # cuda-oom wins; its report is 0.86 like the input
    assert mixed.label == "cuda-oom" and _tiny_model(0.5, 0.8).decide(mixed)
    assert not _tiny_model(0.5, 0.9).decide(mixed)  # the nearest report of the family too far
    both = model.verdict("memory stuck")  # a tie between two families: neither reaches the threshold
    assert both.probability < 0.5 and not model.decide(both)
    assert model.verdict("django").label == fallback.NONE and not model.decide(model.verdict("django"))
    assert model.verdict("words it never saw") is None and not model.decide(None)
    assert model.precision_at(0.4) is None and model.precision_at(0.9)["right"] == 7


def test_run_time_computes_the_scores_training_fitted() -> None:
    """The stdlib model scores a document exactly as scikit-learn's fitted SVM does (up to the weights'
    rounding), and the evidence names reports of the answered family."""
    pytest.importorskip("sklearn")
    texts = {"cuda-oom": ["CUDA out of memory tried to allocate", "OutOfMemoryError GPU memory full",
                          "out of memory on the GPU during training"],
             "hang": ["training stuck at 0%", "NCCL watchdog timeout, the job hangs", "process hangs forever"],
             fallback.NONE: ["django DoesNotExist query", "react cannot read properties of undefined",
                             "make error 1 compiler"]}
    reports = [T.Report(f"r{i}{j}", f"https://github.com/o/r{i}/issues/{j}", f"o/r{i}", "corpus", label, True,
                        text, None) for i, (label, docs) in enumerate(texts.items()) for j, text in enumerate(docs)]
    data = T.fit(reports)
    model = T.as_model(data, scale=1.0, threshold=0.0)
    svm = T._fit_svm([r.document for r in reports], [r.label for r in reports], data["vocabulary"], data["idf"])
    query = "CUDA out of memory while the job hangs"
    expected = svm.decision_function(T._matrix([query], data["vocabulary"], data["idf"]))[0]
    assert list(svm.classes_) == data["classes"]
    assert model.scores(model.vector(query)) == pytest.approx(list(expected), abs=1e-3 * len(data["vocabulary"]))
    v = model.verdict("GPU out of memory")
    assert v.label == "cuda-oom"
    assert all(url.startswith("https://github.com/o/r0/") for _, url in model.nearest(v.vector, v.label))


def test_the_threshold_keeps_wrong_answers_within_the_budget() -> None:
    """choose() never picks a threshold whose held-out wrong answers exceed MAX_WRONG of those asked, even when
    that costs every right answer."""
    def held(label: str, scores: list[float]):
        r = T.Report("x", "https://github.com/o/r/issues/1", "o/r", "corpus", label, True, "", None)
        return T.HeldOut(r, ["cuda-oom", "hang", fallback.NONE], scores)
    quiet = [held(fallback.NONE, [0.0, 0.0, 2.0])] * 92
    # the wrong answers score higher than the right ones: any threshold that answers 5 right also answers 3 wrong
    best, tried = T.choose([held("cuda-oom", [3.0, 0.0, 0.0])] * 5 + [held(fallback.NONE, [4.0, 0.0, 0.0])] * 3 + quiet)
    assert (best["right"], best["wrong"]) == (0, 0)
    assert any(t["right"] == 5 and t["wrong"] == 3 for t in tried)  # it was on offer
    # the other way round, the right ones are answered and the wrong ones are not
    best, _ = T.choose([held("cuda-oom", [4.0, 0.0, 0.0])] * 5 + [held(fallback.NONE, [2.5, 0.0, 0.0])] * 3 + quiet)
    assert best["right"] == 5 and best["wrong"] <= T.MAX_WRONG * 100


def test_the_ceiling_counts_the_most_right_answers_at_each_number_of_wrong_ones() -> None:
    """fallback_train.ceiling (benchmarks/fallback_cv.py, fallback_variants.py): answers by probability, most
    probable first, for one kind of report (with an error or not); what any threshold could buy."""
    def held(label: str, scores: list[float], with_error: bool = True):
        r = T.Report("x", "https://github.com/o/r/issues/1", "o/r", "corpus", label, True, "", None,
                     with_error=with_error)
        return T.HeldOut(r, ["cuda-oom", "hang", fallback.NONE], scores)
    # most probable first: 2 right, then 1 wrong, then 1 right, then 2 wrong; none ranks last on every bias
    errors = ([held("cuda-oom", [9.0, 0.0, 0.0])] * 2 + [held(fallback.NONE, [8.0, 0.0, 0.0])]
              + [held("hang", [0.0, 7.0, 0.0])] + [held(fallback.NONE, [0.0, 6.0, 0.0])] * 2)
    titles = [held("hang", [0.0, 9.0, 0.0], with_error=False)]
    assert T.ceiling(errors + titles, 1.0, True, (0, 1, 2, 3)) == {0: 2, 1: 3, 2: 3, 3: 3}
    assert T.ceiling(errors + titles, 1.0, False, (0, 1)) == {0: 1, 1: 1}
    assert T.ceiling([held("cuda-oom", [0.0, 0.0, 9.0])], 1.0, True, (0,)) == {0: 0}  # none answers nothing


def test_the_title_keywords_excludes_rule_a_family_out() -> None:
    """Where the keyword table says words are not a family's evidence (a compiler's "out of memory"), the model,
    which learnt the words, is not allowed to answer that family; cross-validation applies the same rule."""
    priors = load_knowledge().tables["priors"]
    assert "cuda-oom" in fallback.ruled_out("cc1plus: out of memory allocating 65536 bytes", priors)
    assert "cuda-oom" not in fallback.ruled_out("RuntimeError: CUDA out of memory. Tried to allocate 2 GiB", priors)
    assert fallback.ruled_out("anything", None) == set()
    r = T.Report("x", "https://github.com/o/r/issues/1", "o/r", "corpus", "cuda-oom", True, "", None)
    h = T.HeldOut(r, ["cuda-oom", fallback.NONE], [3.0, 0.0], 1.0, frozenset({"cuda-oom"}))
    assert T.answer(h, (1.0, 0.0), 0.5) is None
    assert T.answer(T.HeldOut(r, ["cuda-oom", fallback.NONE], [3.0, 0.0], 1.0), (1.0, 0.0), 0.5) == "cuda-oom"


def test_folds_never_split_a_repository() -> None:
    reports = [T.Report(f"r{i}", f"https://github.com/o/r{i % 7}/issues/{i}", f"o/r{i % 7}", "corpus", "none",
                        True, "", None) for i in range(40)]
    fold_of = T.folds_by_repo(reports, 3)
    assert set(fold_of) == {f"o/r{i}" for i in range(7)} and set(fold_of.values()) == {0, 1, 2}
    assert T.repo_of("https://github.com/Hiyouga/LLaMA-Factory/issues/12") == "hiyouga/llama-factory"


def test_seeded_folds_are_other_balanced_assignments_that_never_split_a_repository() -> None:
    reports = [T.Report(f"r{i}", f"https://github.com/o/r{i % 50}/issues/{i}", f"o/r{i % 50}", "corpus", "none",
                        True, "", None) for i in range(400)]
    drawn = [T.folds_by_repo(reports, 5, seed) for seed in range(4)]
    for fold_of in drawn:
        assert set(fold_of) == {f"o/r{i}" for i in range(50)}
        sizes = [sum(fold_of[r.repo] == f for r in reports) for f in range(5)]
        assert max(sizes) - min(sizes) <= 8  # one repository's reports at most
    assert drawn[0] == T.folds_by_repo(reports, 5, 0)  # the same seed, the same folds
    assert len({tuple(sorted(d.items())) for d in drawn}) == 4  # other seeds, other assignments


def _random_held(seed: int, n: int = 300) -> list:
    import random

    rng = random.Random(seed)
    classes = ["cuda-oom", "hang", fallback.NONE]
    out = []
    for i in range(n):
        label = rng.choice(classes)
        r = T.Report(f"x{i}", f"https://github.com/o/r{i % 30}/issues/{i}", f"o/r{i % 30}", "corpus", label, True,
                     "", None, scope=T.OUT_OF_SCOPE if label == fallback.NONE and rng.random() < 0.5 else "",
                     other=rng.random() < 0.05)
        scores = [rng.gauss(0, 1) + (1.5 if c == label else 0.0) for c in classes] if rng.random() < 0.95 else []
        out.append(T.HeldOut(r, classes, scores, rng.random(), frozenset({"hang"}) if rng.random() < 0.05
                             else frozenset()))
    return out


def test_the_grid_tally_is_the_tally_at_each_setting() -> None:
    held = _random_held(1)
    grid = T.tallies(held, (2.0, 0.5), (0.3, 0.45, 0.6), (0.0, 0.4))
    assert grid and all(c == T.tally(held, (2.0, 0.5), t, m) for (t, m), c in grid.items())
    assert sum(c["wrong"] for c in grid.values()) > 0 and sum(c["right"] for c in grid.values()) > 0


def test_a_wrong_answer_costs_more_than_a_right_one_gains() -> None:
    """With WRONG_COST 2, answering 3 more right at the cost of 2 more wrong is not worth it; counted 1 for 1
    (the rule before turn 37) it was."""
    def held(label: str, scores: list[float]):
        r = T.Report("x", "https://github.com/o/r/issues/1", "o/r", "corpus", label, True, "", None)
        return T.HeldOut(r, ["cuda-oom", "hang", fallback.NONE], scores)
    reports = ([held("cuda-oom", [5.0, 0.0, 0.0])] * 4 + [held("cuda-oom", [2.0, 0.0, 0.0])] * 3
               + [held(fallback.NONE, [2.0, 0.0, 0.0])] * 2 + [held(fallback.NONE, [0.0, 0.0, 2.0])] * 191)
    assert T.WRONG_COST > 1
    best, _ = T.choose(reports)
    assert (best["right"], best["wrong"]) == (4, 0)
    kept = T.MAX_WRONG_OF_ANSWERS
    T.MAX_WRONG_OF_ANSWERS = 1.0  # the cost alone: the share of the answers (below) would refuse 7/2 anyway
    try:
        before, _ = T.choose(reports, wrong_cost=1.0)
    finally:
        T.MAX_WRONG_OF_ANSWERS = kept
    assert (before["right"], before["wrong"]) == (7, 2)


def test_wrong_answers_stay_within_two_percent_of_the_answers() -> None:
    """Issue #24's budget: of the reports the fallback answers, at most 2% wrong. 30 right and 1 wrong (3% of the
    answers) is within the other budgets (1 wrong of 1,000 reports asked) and gains 28 net of the wrong one's cost,
    yet is refused: the stricter threshold that answers 20 right and none wrong is chosen."""
    def held(label: str, scores: list[float]):
        r = T.Report("x", "https://github.com/o/r/issues/1", "o/r", "corpus", label, True, "", None)
        return T.HeldOut(r, ["cuda-oom", "hang", fallback.NONE], scores)
    reports = ([held("cuda-oom", [6.0, 0.0, 0.0])] * 20 + [held(fallback.NONE, [4.0, 0.0, 0.0])]
               + [held("cuda-oom", [3.5, 0.0, 0.0])] * 10 + [held(fallback.NONE, [0.0, 0.0, 3.0])] * 969)
    best, tried = T.choose(reports)
    offered = [t for t in tried if (t["right"], t["wrong"]) == (30, 1)]
    assert offered and all(t["wrong"] <= T.MAX_WRONG * t["asked"] for t in offered)  # within the older budget
    assert (best["right"], best["wrong"]) == (20, 0)
    assert T.MAX_WRONG_OF_ANSWERS == 0.02


def test_the_repeated_choice_pools_the_assignments() -> None:
    """choose_repeated chooses on every assignment's held-out reports at once (the budgets' shares are those of
    the pool) and reports the chosen setting's tally on each."""
    helds = [_random_held(seed) for seed in range(3)]
    best, per = T.choose_repeated(helds)
    assert best == T.choose([h for held in helds for h in held])[0]
    assert len(per) == 3 and sum(p["right"] for p in per) == best["right"]
    assert sum(p["wrong"] for p in per) == best["wrong"] <= T.MAX_WRONG * best["asked"]


def _imported_modules(path: str) -> str:
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "kb", "diagnose", path], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    return run.stderr


def test_diagnose_does_not_import_the_fallback_when_a_signature_answers(tmp_path) -> None:
    answered = _imported_modules("examples/dtype-double-vs-float.txt")
    assert "kb.diagnose." in answered  # importtime's report is there
    assert "kb.diagnose.fallback" not in answered
    assert "gzip" not in answered.split() and "json" not in answered.split()
    reached = tmp_path / "x.txt"
    reached.write_text(HELD_OUT_LIKE)
    assert "kb.diagnose.fallback" in _imported_modules(str(reached))  # the check above can fail


def test_a_sealed_set_before_its_first_score_is_not_trained_on(tmp_path: Path) -> None:
    """A sealed drift batch sits in the dev manifest from its gathering to the session's end; until its first score
    its sampling file opens with FIRST SCORE PENDING, and the trainer leaves its entries out (turn 37: the model the
    sealed drift-45 was first-scored with had been trained on it)."""
    (tmp_path / "manifest.toml").write_text("")
    (tmp_path / "drift-90-sampling.txt").write_text("FIRST SCORE PENDING: to be taken at the session's end.\n")
    (tmp_path / "drift-91-sampling.txt").write_text("FIRST SCORE TAKEN at the session's end (abc1234): ...\n")
    (tmp_path / "drift-92-sampling.txt").write_text("Batch \"drift-92\" (issue #25, first-scored by its helper) ...\n")
    assert T.pending_sets(tmp_path / "manifest.toml") == {"drift-90"}
