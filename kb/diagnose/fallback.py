"""The learned fallback: a family from a linear model of the labelled real reports, when no signature and no prior
answered.

Signatures know wordings, priors know frames, classes and a few title words. What neither knows may still look
like reports kb has seen: the corpus of real reports (corpus/) and the dev set, each labelled with a family, or
with "none" for software outside the stack and failures of no known kind. ``tables/fallback-model.json.gz``
(built by ``python scripts/fallback_train.py``, read through kb/knowledge) holds a linear SVM's per-class weights
over TF-IDF terms (words, word pairs, character n-grams of words) of the reports' documents, pruned to the
terms that weigh most, and the scale that turns its scores into calibrated probabilities (a softmax). The top
class answers when it is a family, not "none", and its probability reaches the threshold that cross-validation
by repository chose (benchmarks/fallback_cv.py: wrong answers at most 2% of the held-out reports asked and of
its answers). The answer shows that probability, says it is a lower-confidence learned guess, and names the nearest labelled
reports of its family as evidence (their URLs; each kept as its heaviest terms, never its text), with
``basis = "family-learned"``. Like the title keywords, it never answers a report whose first lines name other
software (tables/priors.toml ``[other]``) unless a typed error raised in a stack lets its frames decide
(priors.other_software_report), nor a family whose keyword rule that table or the rule's excludes rule out.

Run time is the standard library only: tokenise, look up weights, softmax. This module and the model are read
only when the pipeline reaches it (kb/diagnose/diagnosis.py imports it lazily): an input a signature answers
starts and runs exactly as before. The model is read from its packed copy in the cache folder
(kb/knowledge/fallback_pack.py: the weights of the document's own terms only, the evidence reports when the model
answers), written there from the JSON by the first run after the file changes: ~0.25 s of JSON parsing a run less.
"""

from __future__ import annotations

import math

from kb.diagnose.answers import Answer, Candidate
from kb.diagnose.errors import ParsedError
from kb.diagnose.match import one_line
from kb.diagnose.priors import PriorMatch, PriorSignature, names_other_software, other_software_report
from kb.knowledge.precompiled import pattern as _compile  # (turn 46) the regex cache's: no `re` import on a warm run

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from kb.diagnose.priors import LineEvidence
    from kb.knowledge.fallback_pack import PackedModel
    from kb.knowledge.model import Knowledge

BASIS = "family-learned"
NONE = "none"  # the label of reports of no family (out of scope, or a failure kb has no family for)
LEARNED_SCORE = 0.3  # always low: below a title's keywords (priors.KEYWORD_SCORE), below any signature
MAX_ERRORS = 4  # the root error and the first others, in input order
MESSAGE_CHARS = 600  # of each error's message
MAX_FRAMES = 8  # innermost frames of each error
TEXT_CHARS = 4000  # the document, in all
NGRAMS = (3, 4, 5)  # character n-grams of each word, padded with a space at both ends
MAX_EVIDENCE_REPORTS = 3
FORMAT = 2  # the model file's layout (scripts/fallback_train.py writes it)

_IGNORECASE = 2  # re.IGNORECASE's value (the regex cache takes re's flags as ints)
_WORD = _compile(r"\w+")
_HEX = _compile(r"0x[0-9a-f]+")
_DIGITS = _compile(r"\d+")
_PACKAGES = _compile(r"^.*?(?:site|dist)-packages/")
_LINK = _compile(r"\b(?:https?://|www\.)\S+")
_LETTERS = _compile(r"[^\W\d_]{2,}")  # a word of two letters or more, in any script
# A traceback's first line: a notebook's rule of dashes, or a header "X   Traceback (most recent call last)".
_TRACEBACK_START = _compile(r"-{8,}$|(?:[\w.]{1,120}\s+)?Traceback \(most recent call last\)")


def frame_text(file: str) -> str:
    """A frame's file as words that generalise: an installed package's path from the package on
    (``transformers/trainer.py``); another file's name alone (``train.py``: a user's folders say nothing)."""
    path = file.replace("\\", "/")
    inside = _PACKAGES.sub("", path)
    return inside if inside != path else path.rsplit("/", 1)[-1]


def document_text(head: list[str], root: ParsedError | None, errors: list[ParsedError]) -> str:
    """The text the model reads: the input's first lines (a title, a prose line), then the root error and the
    first others (type, message, the files and functions of their innermost frames). Training builds the same
    document from the same parse (scripts/fallback_train.py), so the two never drift apart."""
    parts = [line.strip() for line in head]
    chosen = ([root] if root is not None else []) + [e for e in errors if e is not root and (e.type or e.message)]
    for error in chosen[:MAX_ERRORS]:
        parts.append(f"{error.type} {error.message[:MESSAGE_CHARS]}")
        parts.extend(f"{frame_text(f.file)} {f.function}" for f in error.frames[-MAX_FRAMES:])
    return "\n".join(parts)[:TEXT_CHARS]


def terms(text: str) -> dict[str, int]:
    """The document's terms and their counts: every word (``w:name``), every pair of neighbouring words
    (``b:one two``) and each word's character n-grams (digits read as 0, hex numbers as 0x)."""
    text = _DIGITS.sub("0", _HEX.sub("0x", text.lower()))
    counts: dict[str, int] = {}
    words = _WORD.findall(text)
    for word in words:
        counts["w:" + word] = counts.get("w:" + word, 0) + 1
        padded = f" {word} "
        for n in NGRAMS:
            for i in range(len(padded) - n + 1):
                gram = padded[i:i + n]
                counts[gram] = counts.get(gram, 0) + 1
    for first, second in zip(words, words[1:]):
        pair = f"b:{first} {second}"
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def weigh(counts: dict[str, int], index: dict[str, int], idf: list[float]) -> dict[int, float]:
    """Sublinear TF-IDF over the model's vocabulary, L2-normalised (terms the model lacks are dropped). The
    trainer builds its matrix with this very function, over the same (pruned) vocabulary."""
    vector = {index[t]: (1.0 + math.log(c)) * idf[index[t]] for t, c in counts.items() if t in index}
    norm = math.sqrt(sum(v * v for v in vector.values()))
    return {k: v / norm for k, v in vector.items()} if norm else {}


def softmax(scores: list[float], scale: float) -> list[float]:
    """The classes' probabilities from their linear scores, times ``scale`` (the inverse temperature the trainer
    fits on held-out scores, so the probabilities are calibrated)."""
    top = max(scores)
    exps = [math.exp(scale * (s - top)) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def ruled_out(text: str, priors: dict[str, Any] | None) -> set[str]:
    """The families the title keywords (tables/priors.toml ``[[keyword]]``) rule out for this text: a rule whose
    words all match, and one of whose ``excludes`` matches too ("out of memory" from a compiler, a hang of an
    install), or the [other] table's words of other software, which every keyword rule honours
    (priors.names_other_software). The table knows those words are not the family's evidence there; the model,
    which learnt the words, does not, so it must not answer that family."""
    found: set[str] = set()
    other: list[bool] = []  # whether the text names other software: asked once, when a rule's words first match
    for rule in (priors or {}).get("keyword", []):
        # ``all`` holds the rule's own words ("out of memory"); its ``needs_stack`` (that the text also name the
        # fine-tuning stack) is not asked: a compiler's "out of memory" need not name the stack to be ruled out
        if rule["family"] in found or not all(_compile(p, _IGNORECASE).search(text) for p in rule["all"]):
            continue
        if not other:
            other.append(names_other_software(text, priors) is not None)
        if other[0] or any(_compile(p, _IGNORECASE).search(text) for p in rule.get("excludes", [])):
            found.add(rule["family"])
    return found


def excluded_families(root: ParsedError | None, knowledge: Knowledge) -> set[str]:
    """The families a signature's ``excludes`` ruled out for the root error: its message matched a family's (or a
    case's) signature, and a frame or nearby line showed it was raised where that wording is not the family's (another
    program's code, a cause the entry lists as not its own). The table knows; the model, which learnt the wording,
    does not, so it must not answer that family (as ``ruled_out`` does for the keywords' excludes)."""
    if root is None or not root.message:
        return set()
    from kb.diagnose.match import _excluded, searchable  # the matcher's own rule, so the two never drift apart

    text = searchable(root.message)
    found: set[str] = set()
    for entry in (*knowledge.families, *knowledge.cases):
        family = entry.key if entry.kind == "family" else entry.family
        for signature in entry.signatures:
            if family in found or not signature.excludes or not signature.may_match(text):
                continue
            if signature.message.search(text) and _excluded(signature, root) is not None:
                found.add(family)
    return found


class _Rows:
    """A packed model's weights by term, as ``weights[t]`` of the JSON's: ``[class, weight, ...]``. Where a block of
    the packed copy fails its check (kb/knowledge/fallback_pack.py reads each when first needed), the JSON's weights
    from then on: the same numbers in the same order, so the verdict is the same."""

    __slots__ = ("packed", "_json")

    def __init__(self, packed: PackedModel) -> None:
        self.packed = packed
        self._json: list[list[Any]] | None = None

    def __getitem__(self, t: int) -> list[Any]:
        if self._json is None:
            row = self.packed.row(t)
            if row is not None:
                return row
            from kb.knowledge.tables import read_fallback_model

            self._json = read_fallback_model()["weights"]
        return self._json[t]

    def __len__(self) -> int:
        return self.packed.n


class Verdict:
    """The model's verdict on one document: the top class, its probability, and the document's vector."""

    __slots__ = ("label", "probability", "vector")

    def __init__(self, label: str, probability: float, vector: dict[int, float]) -> None:
        self.label, self.probability, self.vector = label, probability, vector


class FallbackModel:
    """The linear model, from the data ``scripts/fallback_train.py`` writes:

    - ``classes``: the families and "none"; ``intercepts``: one per class;
    - ``vocabulary``, ``idf``: the terms kept, and ``weights``: per term, its non-zero weights as a flat list
      ``[class, weight, class, weight, ...]``;
    - ``scale``: the softmax's inverse temperature; ``threshold``: the least probability that answers;
      ``min_similarity``: the least cosine of the nearest evidence report of the answered family;
    - ``calibration``: held-out answers by probability bin; ``held_out``: the cross-validation's counts;
    - ``labels``, ``urls``, ``vectors``: the labelled reports of a family kept as evidence, each vector its
      heaviest terms ``[[term, ...], [weight, ...]]``.
    """

    def __init__(self, data: dict[str, Any], packed: PackedModel | None = None) -> None:
        """``packed``: the same model as the cache folder keeps it (kb/knowledge/fallback_pack.py), whose small fields
        are ``data``; its terms, idf and weights are looked up there, its evidence reports read when first asked for."""
        self.classes: list[str] = data["classes"]
        self.intercepts: list[float] = data["intercepts"]
        self.scale: float = data["scale"]
        self.threshold: float = data["threshold"]
        self.min_similarity: float = data["min_similarity"]
        self.calibration: list[dict[str, Any]] = data["calibration"]
        self.held_out: dict[str, Any] = data["held_out"]
        self.packed = packed
        self._evidence: list[tuple[list[str], list[str], list[list[list[Any]]]]] = []
        if packed is not None:
            self.idf: Any = packed.idf
            self.weights: Any = _Rows(packed)
            return
        self._use_json(data)

    @property
    def labels(self) -> list[str]:
        return self._evidence_lists()[0]

    @property
    def urls(self) -> list[str]:
        return self._evidence_lists()[1]

    @property
    def vectors(self) -> list[list[list[Any]]]:
        return self._evidence_lists()[2]

    def _evidence_lists(self) -> tuple[list[str], list[str], list[list[list[Any]]]]:
        """The evidence reports (labels, URLs, heaviest terms): a packed model reads them on first use."""
        if not self._evidence:
            found = self.packed.evidence() if self.packed is not None else None
            if found is None:  # the cache's piece failed its check: the JSON's
                from kb.knowledge.tables import read_fallback_model

                data = read_fallback_model()
                found = (data["labels"], data["urls"], data["vectors"])
            self._evidence.append(found)
        return self._evidence[0]

    def vector(self, text: str) -> dict[int, float]:
        counts = terms(text)
        if self.packed is None:
            return weigh(counts, self.index, self.idf)
        from kb.knowledge.fallback_pack import DamagedBucket  # (imported already: the packed model is its)

        lookup = self.packed.lookup  # the document's own terms only (weigh reads no other)
        index = {}
        try:
            for t in counts:
                i = lookup(t)
                if i is not None:
                    index[t] = i
        except DamagedBucket:  # a bucket of the packed copy failed its check: the JSON's model from now on
            from kb.knowledge.tables import read_fallback_model

            self._use_json(read_fallback_model())
            return weigh(counts, self.index, self.idf)
        return weigh(counts, index, self.idf)

    def _use_json(self, data: dict[str, Any]) -> None:
        """The JSON's vocabulary, idf and weights (a model without a packed copy, or instead of one whose bucket failed
        its check: the same numbers in the same order, so the same verdicts); its evidence reports too, where they
        were not read yet."""
        self.packed = None
        self.vocabulary: list[str] = data["vocabulary"]
        self.idf = data["idf"]
        self.index = {t: i for i, t in enumerate(self.vocabulary)}
        self.weights = data["weights"]
        if not self._evidence:
            self._evidence.append((data["labels"], data["urls"], data["vectors"]))

    def scores(self, vector: dict[int, float]) -> list[float]:
        """Each class's linear score: its intercept plus the weighted sum of the document's terms."""
        scores = list(self.intercepts)
        for t, x in vector.items():
            flat = self.weights[t]
            for i in range(0, len(flat), 2):
                scores[int(flat[i])] += x * flat[i + 1]
        return scores

    def verdict(self, text: str) -> Verdict | None:
        """The top class and its probability; None when the document shares no term with the model."""
        vector = self.vector(text)
        if not vector:
            return None
        probabilities = softmax(self.scores(vector), self.scale)
        best = max(range(len(probabilities)), key=lambda i: (probabilities[i], -i))
        return Verdict(self.classes[best], probabilities[best], vector)

    def decide(self, found: Verdict | None) -> bool:
        """Whether the verdict is an answer: a family (not "none") at or above the threshold, with a labelled
        report of that family at least ``min_similarity`` like the input."""
        if found is None or found.label == NONE or found.probability < self.threshold:
            return False
        near = self.nearest(found.vector, found.label, 1)
        return bool(near) and near[0][0] >= self.min_similarity

    def nearest(self, vector: dict[int, float], label: str, n: int = MAX_EVIDENCE_REPORTS) -> list[tuple[float, str]]:
        """The ``n`` labelled reports of ``label`` most like the document (cosine over their stored terms; URL),
        nearest first; only those that share a term with it."""
        near = []
        for family, url, (ts, ws) in zip(self.labels, self.urls, self.vectors):
            if family == label:
                s = sum(vector.get(t, 0.0) * w for t, w in zip(ts, ws))
                if s > 0:
                    near.append((s, url))
        near.sort(key=lambda x: (-x[0], x[1]))
        return near[:n]

    def precision_at(self, probability: float) -> dict[str, Any] | None:
        """The held-out record of answers at this probability: the calibration bin it falls in (bins ascend by
        their lower bound ``from``), or None below the first."""
        found = None
        for row in self.calibration:
            if probability >= row["from"]:
                found = row
        return found


_MODEL: list[FallbackModel | None] = []


def use_model(model: FallbackModel | None) -> None:
    """Answer from ``model`` from now on in this process (None: never answer). For the trainer's
    cross-validation and the tests; `kb diagnose` reads the shipped model."""
    _MODEL[:] = [model]


def load_model() -> FallbackModel | None:
    """The model in use: the shipped one, read once per process; None when the knowledge root has none."""
    if not _MODEL:
        from kb.knowledge.fallback_pack import cached_model
        from kb.knowledge.tables import FALLBACK_MODEL, read_fallback_model, table_path

        path = table_path(FALLBACK_MODEL)
        model = None
        try:
            packed = cached_model(path)  # (turn 46) the cache folder's packed copy: ~0.25 s less than the JSON
            if packed is None:
                model = FallbackModel(read_fallback_model(path))
            elif isinstance(packed, dict):  # (not packed: the JSON's data, read once)
                model = FallbackModel(packed)
            else:
                model = FallbackModel(packed.small, packed)
        except OSError:
            model = None
        _MODEL.append(model)
    return _MODEL[0]


class LearnedMatch(PriorMatch):
    """A family matched by the learned fallback: ``basis`` family-learned, ``why`` the model's probability."""

    __slots__ = ()

    def __init__(self, entry: Any, error: ParsedError, evidence: list[str], why: str) -> None:
        super().__init__(entry, "learned", error, LEARNED_SCORE, evidence, BASIS, why)
        self.signature = PriorSignature("learned:linear-model")


def fallback_answers(root: ParsedError | None, errors: list[ParsedError], knowledge: Knowledge,
                     evidence: LineEvidence, model: FallbackModel | None = None) -> list[Answer]:
    """One family answer from the learned model, or none. Call only when neither a signature nor a prior
    answered, and the API history does not judge the root error (kb/diagnose/diagnosis.py _history_judges): it never
    competes with them."""
    if class_without_message(root, errors, evidence.head):
        # the input is an exception's class cut off from its message (a notebook's "AttributeError  Traceback (most
        # recent call last)" header, the rest of the traceback not pasted), no prose before it: the class alone is
        # every library's
        return []
    priors = knowledge.tables.get("priors")
    if other_software_report(evidence.head, errors, priors, cut=True) is not None:
        # the first lines name other software and no typed error's frames decide: another program's report
        return []
    text = document_text(evidence.head, root, errors)
    if not text.strip():  # nothing to read: the model is not even loaded
        return []
    if not _LETTERS.search(_LINK.sub(" ", text)):
        # only links (a title that is an issue tracker's URL): the words of an address say nothing of the failure
        return []
    model = model if model is not None else load_model()
    if model is None:
        return []
    verdict = model.verdict(text)
    if verdict is None or not model.decide(verdict) or verdict.label in ruled_out(text, priors):
        return []
    if verdict.label in excluded_families(root, knowledge):
        return []
    family = knowledge.family(verdict.label)
    if family is None:  # a knowledge root without this family
        return []
    record = model.precision_at(verdict.probability)
    why = f"{verdict.probability:.0%} probable: a lower-confidence learned guess from labelled real reports"
    lines = [why]
    if record:
        lines.append(f"on repositories left out of training, answers this probable were right {record['right']} of "
                     f"{record['answered']} times")
    lines += [f"similar report ({s:.2f}): {url}" for s, url in model.nearest(verdict.vector, verdict.label)]
    lines.append("no signature of any case or family matched and no prior held: reports like this one decided the "
                 "family (read the triage)")
    where = root if root is not None else _first_line(evidence)
    m = LearnedMatch(family, where, lines, why)
    return [Answer(m, [Candidate(c, None) for c in knowledge.family_cases(family)])]  # type: ignore[arg-type]


def class_without_message(root: ParsedError | None, errors: list[ParsedError], head: list[str]) -> bool:
    """The input says no more than an exception's class: the root error is typed, neither it nor any other error read
    holds a message, and the input starts with the traceback itself (``head``, its first non-blank lines: a notebook's
    rule of dashes or its "X   Traceback (most recent call last)" header), not with a sentence of prose, which may say
    what was changed. Reports like that share their class with every library's errors, and a learned model reads the
    class name as a strong word ("AttributeError" pulls to api-drift): it should not guess."""
    if root is None or not root.type or root.message.strip() or any(e.message.strip() for e in errors):
        return False
    first = head[0].strip() if head else ""
    return not first or _TRACEBACK_START.match(first) is not None


def _first_line(evidence: LineEvidence) -> ParsedError:
    """Where a title-only input's answer points: its first non-blank line."""
    if evidence.head:
        return ParsedError("", one_line(evidence.head[0].strip(), 300), line_no=evidence.head_line_nos[0])
    return ParsedError("", "", line_no=0)
