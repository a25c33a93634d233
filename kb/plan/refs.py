"""The cases a plan names (tables/plan-cases.toml): the code states the condition, the table the case."""

from __future__ import annotations

from typing import Any

from kb.knowledge.index import load_index
from kb.knowledge.tables import read_table


def case_summary(slug: str) -> dict[str, Any]:
    """The case with ``slug``: its id, title and how to read it; says so when this knowledge base lacks it."""
    for case in load_index().cases:  # the cached index: kb plan stays fast
        if case.slug == slug:
            return {"id": case.id, "title": case.title, "more": f"kb show {case.id}"}
    return {"id": None, "title": None, "more": "case not in this knowledge base"}


def case_ref(name: str) -> str:
    """``KB0004 rotary-emb-left-on-cpu`` for a name of tables/plan-cases.toml's [refs]."""
    slug = read_table("plan-cases")["refs"][name]
    case_id = case_summary(slug)["id"]
    return f"{case_id} {slug}" if case_id else slug
