"""The cases a plan names (tables/plan-cases.toml): the code states the condition, the table the case."""

from __future__ import annotations

from kb.knowledge.index import load_index
from kb.knowledge.paths import cases_root, families_root
from kb.knowledge.tables import read_table

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any


_CASES: dict[tuple[str, str], dict[str, Any]] = {}  # _cases' answers (functools.lru_cache's import, ~2 ms, is not on
# kb diagnose's path for an OOM log it plans)
CASES_KEPT = 4


def _cases(case_root: str, family_root: str) -> dict[str, Any]:
    """slug -> case of the knowledge under these roots, from the cached index (read once per process). (Only the
    case asked for has its title read: the index decodes an entry's fields on first use, ~20 us each.)"""
    found = _CASES.get((case_root, family_root))
    if found is None:
        if len(_CASES) >= CASES_KEPT:
            _CASES.clear()
        found = _CASES[case_root, family_root] = {case.slug: case
                                                  for case in load_index(case_root, family_root, reuse=True).cases}
    return found


def case_summary(slug: str) -> dict[str, Any]:
    """The case with ``slug``: its id, title and how to read it; says so when this knowledge base lacks it."""
    case = _cases(cases_root(), families_root()).get(slug)
    if case is not None:
        return {"id": case.id, "title": case.title, "more": f"kb show {case.id}"}
    return {"id": None, "title": None, "more": "case not in this knowledge base"}


def case_ref(name: str) -> str:
    """``KB0004 rotary-emb-left-on-cpu`` for a name of tables/plan-cases.toml's [refs]."""
    slug = read_table("plan-cases")["refs"][name]
    case_id = case_summary(slug)["id"]
    return f"{case_id} {slug}" if case_id else slug
