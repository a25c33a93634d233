"""The learned fallback: a family from the nearest labelled real reports, when no signature and no prior answered.

Signatures know wordings, priors know frames, classes and a few title words. What neither knows may still look
like reports kb has seen: the corpus of real reports (corpus/) and the dev set, each labelled with a family, or
with "none" for software outside the stack and failures of no known kind. ``tables/fallback-model.json.gz``
(built by ``python -m kb.diagnose.fallback_train``, read through kb/knowledge) holds their TF-IDF vectors of
character n-grams, with each report's URL and family (never its text). The input's vector is compared with
every report's (cosine); its nearest ``k`` vote, weighted by similarity. The family answers when it wins the
vote, ``none`` does not, and its share of the vote reaches the threshold that cross-validation by repository
chose (benchmarks/fallback_cv.py: at most 2% wrong on repositories left out of training). The answer names the
nearest reports of its family as evidence, at low confidence, with ``basis = "family-learned"``.

This module and the model are read only when the pipeline reaches it (kb/diagnose/diagnosis.py imports it
lazily): an input a signature answers starts and runs exactly as before.
"""

from __future__ import annotations

import math
import re

from kb.diagnose.drift import recognise
from kb.diagnose.answers import Answer, Candidate
from kb.diagnose.errors import ParsedError
from kb.diagnose.match import one_line
from kb.diagnose.priors import PriorMatch, PriorSignature

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from kb.diagnose.priors import LineEvidence
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

_WORD = re.compile(r"\w+")
_HEX = re.compile(r"0x[0-9a-f]+")
_DIGITS = re.compile(r"\d+")
_PACKAGES = re.compile(r"^.*?(?:site|dist)-packages/")


def frame_text(file: str) -> str:
    """A frame's file as words that generalise: an installed package's path from the package on
    (``transformers/trainer.py``); another file's name alone (``train.py``: a user's folders say nothing)."""
    path = file.replace("\\", "/")
    inside = _PACKAGES.sub("", path)
    return inside if inside != path else path.rsplit("/", 1)[-1]


def document_text(head: list[str], root: ParsedError | None, errors: list[ParsedError]) -> str:
    """The text the model reads: the input's first lines (a title, a prose line), then the root error and the
    first others (type, message, the files and functions of their innermost frames). Training builds the same
    document from the same parse (kb/diagnose/fallback_train.py), so the two never drift apart."""
    parts = [line.strip() for line in head]
    chosen = ([root] if root is not None else []) + [e for e in errors if e is not root and (e.type or e.message)]
    for error in chosen[:MAX_ERRORS]:
        parts.append(f"{error.type} {error.message[:MESSAGE_CHARS]}")
        parts.extend(f"{frame_text(f.file)} {f.function}" for f in error.frames[-MAX_FRAMES:])
    return "\n".join(parts)[:TEXT_CHARS]


def terms(text: str) -> dict[str, int]:
    """The document's terms and their counts: every word (``w:name``) and its character n-grams."""
    text = _DIGITS.sub("0", _HEX.sub("0x", text.lower()))
    counts: dict[str, int] = {}
    for word in _WORD.findall(text):
        counts["w:" + word] = counts.get("w:" + word, 0) + 1
        padded = f" {word} "
        for n in NGRAMS:
            for i in range(len(padded) - n + 1):
                gram = padded[i:i + n]
                counts[gram] = counts.get(gram, 0) + 1
    return counts


def weigh(counts: dict[str, int], index: dict[str, int], idf: list[float]) -> dict[int, float]:
    """Sublinear TF-IDF over the model's vocabulary, L2-normalised (terms the model lacks are dropped)."""
    vector = {index[t]: (1.0 + math.log(c)) * idf[index[t]] for t, c in counts.items() if t in index}
    norm = math.sqrt(sum(v * v for v in vector.values()))
    return {k: v / norm for k, v in vector.items()} if norm else {}


def vote(near: list[tuple[float, str]], none_weight: float) -> tuple[str | None, float]:
    """The winning label of the neighbours (similarity, label) and its share of the vote. Each neighbour votes
    its similarity; a "none" neighbour's vote counts ``none_weight`` times: most inputs that reach the fallback
    are of no family, far more than among the labelled reports, which signatures mostly answer (the weight
    corrects for that, and cross-validation chooses it). Ties go to the first label in sorted order."""
    votes: dict[str, float] = {}
    for s, label in near:
        votes[label] = votes.get(label, 0.0) + s * (none_weight if label == NONE else 1.0)
    total = sum(votes.values())
    if not total:
        return None, 0.0
    label = max(sorted(votes), key=lambda x: votes[x])
    return label, votes[label] / total


def decide(label: str | None, share: float, near: list[tuple[float, str]], threshold: float,
           min_similarity: float) -> bool:
    """Whether a vote is an answer: a family (not "none") won, with at least ``threshold`` of the vote, and its
    nearest report is at least ``min_similarity`` close."""
    if label is None or label == NONE or share < threshold:
        return False
    return max(s for s, lab in near if lab == label) >= min_similarity


class Vote:
    """The model's verdict on one document: the winning label, its share of the neighbours' similarity, and
    the neighbours (similarity, report index), nearest first."""

    __slots__ = ("label", "share", "neighbours")

    def __init__(self, label: str, share: float, neighbours: list[tuple[float, int]]) -> None:
        self.label, self.share, self.neighbours = label, share, neighbours


class FallbackModel:
    """The nearest-neighbour model, from the data ``kb.diagnose.fallback_train`` writes (see its ``model_data``)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.vocabulary: list[str] = data["vocabulary"]
        self.idf: list[float] = data["idf"]
        self.index = {t: i for i, t in enumerate(self.vocabulary)}
        self.labels: list[str] = data["labels"]  # one per report: a family or "none"
        self.urls: list[str] = data["urls"]
        self.k: int = data["k"]
        self.none_weight: float = data["none_weight"]
        self.threshold: float = data["threshold"]
        self.min_similarity: float = data["min_similarity"]
        self.calibration: list[dict[str, Any]] = data["calibration"]
        self.held_out: dict[str, Any] = data["held_out"]
        # per term: [reports, weights]; a query touches only the reports that share a term with it
        self.postings: list[list[list[Any]]] = data["postings"]

    def vector(self, text: str) -> dict[int, float]:
        return weigh(terms(text), self.index, self.idf)

    def neighbours(self, vector: dict[int, float]) -> list[tuple[float, int]]:
        """The ``k`` nearest reports (cosine similarity, report index), nearest first."""
        sims: dict[int, float] = {}
        for t, q in vector.items():
            docs, weights = self.postings[t]
            for doc, w in zip(docs, weights):
                sims[doc] = sims.get(doc, 0.0) + q * w
        return sorted(((s, d) for d, s in sims.items()), key=lambda x: (-x[0], x[1]))[: self.k]

    def vote(self, text: str) -> Vote | None:
        """The neighbours' vote (see ``vote``); None when no report shares a term with the text."""
        near = [(s, d) for s, d in self.neighbours(self.vector(text)) if s > 0]
        label, share = vote([(s, self.labels[d]) for s, d in near], self.none_weight)
        return Vote(label, share, near) if label is not None else None

    def decide(self, found: Vote | None) -> bool:
        """Whether the vote is an answer (see ``decide``)."""
        if found is None:
            return False
        return decide(found.label, found.share, [(s, self.labels[d]) for s, d in found.neighbours], self.threshold,
                      self.min_similarity)

    def precision_at(self, share: float) -> dict[str, Any] | None:
        """The held-out record of answers at this share of the vote: the calibration bin it falls in (bins
        ascend by their lower bound ``from``), or None below the first."""
        found = None
        for row in self.calibration:
            if share >= row["from"]:
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
        from kb.knowledge.tables import read_fallback_model

        try:
            data = read_fallback_model()
        except OSError:
            data = None
        _MODEL.append(FallbackModel(data) if data is not None else None)
    return _MODEL[0]


class LearnedMatch(PriorMatch):
    """A family matched by the learned fallback: ``basis`` family-learned, ``why`` what the vote was."""

    __slots__ = ()

    def __init__(self, entry: Any, error: ParsedError, evidence: list[str], why: str) -> None:
        super().__init__(entry, "learned", error, LEARNED_SCORE, evidence, BASIS, why)
        self.signature = PriorSignature("learned:nearest-reports")


def fallback_answers(root: ParsedError | None, errors: list[ParsedError], knowledge: Knowledge,
                     evidence: LineEvidence, model: FallbackModel | None = None) -> list[Answer]:
    """One family answer from the nearest labelled reports, or none. Call only when neither a signature nor a
    prior answered: it never competes with them."""
    if root is not None and recognise(root.type, root.message) is not None:
        # A keyword, import or attribute the API history judges: it knows every release's names and found no
        # drift (a typo, the user's own code), so reports that merely look alike must not overrule it.
        return []
    model = model if model is not None else load_model()
    if model is None:
        return []
    text = document_text(evidence.head, root, errors)
    if not text.strip():
        return []
    vote = model.vote(text)
    if vote is None or not model.decide(vote):
        return []
    family = knowledge.family(vote.label)
    if family is None:  # a knowledge root without this family
        return []
    same = [(s, model.urls[d]) for s, d in vote.neighbours if model.labels[d] == vote.label]
    record = model.precision_at(vote.share)
    held = (f"on repositories left out of training, answers with this share of the vote were right "
            f"{record['right']} of {record['answered']} times" if record else "")
    why = (f"{len(same)} of the {len(vote.neighbours)} nearest labelled reports are {vote.label}, "
           f"{vote.share:.0%} of the similarity-weighted vote")
    lines = [f"the nearest labelled reports: {why}" + (f"; {held}" if held else "")]
    lines += [f"similar report ({s:.2f}): {url}" for s, url in same[:MAX_EVIDENCE_REPORTS]]
    lines.append("no signature of any case or family matched and no prior held: reports like this one decided the "
                 "family (a learned guess; read the triage)")
    where = root if root is not None else _first_line(evidence)
    m = LearnedMatch(family, where, lines, why)
    return [Answer(m, [Candidate(c, None) for c in knowledge.family_cases(family)])]  # type: ignore[arg-type]


def _first_line(evidence: LineEvidence) -> ParsedError:
    """Where a title-only input's answer points: its first non-blank line."""
    if evidence.head:
        return ParsedError("", one_line(evidence.head[0].strip(), 300), line_no=evidence.head_line_nos[0])
    return ParsedError("", "", line_no=0)
