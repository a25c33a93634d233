"""What kb's rules answer (signatures and priors; the learned fallback left out): the helpers the priors', precision
and other-software test files share, and ``answers`` with the learned fallback in use."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kb.diagnose import fallback
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.diagnose.priors import basis
from kb.knowledge.registry import load_knowledge

RULES = ("case", "family-evidence", "family-prior", "family-keyword")  # every basis but the learned fallback's
SIGNATURES = ("case", "family-evidence")


def ruled(text: str, bases: tuple[str, ...] = RULES) -> list[tuple[str, str]]:
    """(family, basis) of each answer whose basis is one of ``bases``, in the document's order."""
    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))
    return [(m["family"], m["basis"]) for m in doc["matches"] if m["basis"] in bases]


def top(text: str) -> tuple[str, str] | None:
    """(family, basis) of the first answer a signature or a prior gave, or None."""
    answers = ruled(text)
    return answers[0] if answers else None


def families(text: str, bases: tuple[str, ...] = RULES) -> list[str]:
    """The families of ``ruled``'s answers."""
    return [family for family, _basis in ruled(text, bases)]



SP = "/home/ana/.venv/lib/python3.11/site-packages"  # a site-packages folder for the frames tests build


def tb(*frames: tuple[str, int, str], error: str) -> str:
    """A traceback from the user's train.py through ``frames`` ((file, line, function), outermost first), ending in
    the exception line ``error``."""
    lines = ["Traceback (most recent call last):", '  File "/home/ana/proj/train.py", line 12, in <module>',
             "    main()"]
    for file, line, function in frames:
        lines += [f'  File "{file}", line {line}, in {function}', "    x = call()"]
    return "\n".join([*lines, error]) + "\n"

def answers(text: str) -> list[tuple[str, str]]:
    """(family, basis) of every answer kb gives ``text``, the learned fallback's included."""
    d = diagnose_lines(text.splitlines(keepends=True), load_knowledge())
    return [(a.family, basis(a)) for a in d.answers]


def priors() -> dict:
    """tables/priors.toml as the knowledge holds it."""
    return load_knowledge().tables["priors"]


@pytest.fixture
def zorblax_model() -> Iterator[None]:
    """A learned model that answers shape-mismatch for any document holding "zorblax" (the shipped one put back
    after). A test module uses it by importing it from here."""
    kept = fallback._MODEL[:]
    fallback.use_model(fallback.FallbackModel({
        "classes": ["shape-mismatch", fallback.NONE], "intercepts": [0.0, 0.0], "vocabulary": ["w:zorblax"],
        "idf": [1.0], "weights": [[0, 5.0]], "scale": 2.0, "threshold": 0.5, "min_similarity": 0.0,
        "calibration": [], "held_out": {}, "labels": ["shape-mismatch"], "urls": ["https://example.invalid/1"],
        "vectors": [[[0], [1.0]]]}))
    yield
    fallback._MODEL[:] = kept
