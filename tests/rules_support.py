"""What kb's rules answer (signatures and priors; the learned fallback left out): the helpers the priors' and
precision test files share."""

from __future__ import annotations

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
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
