"""Helpers the unrelated-NN test files share (tests/test_unrelated38.py, tests/test_unrelated39.py): a batch of real
reports with other programs' error output (corpus/reports-gh-unrelated-NN.jsonl), labelled out-of-scope, and kb's
first answer to a text."""

from __future__ import annotations

import json
from pathlib import Path

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

REPO = Path(__file__).resolve().parent.parent


def records(batch: Path) -> list[dict]:
    """The batch's records, in file order."""
    with open(batch, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def top(text: str) -> str | None:
    """kb's first answer to ``text`` as ``kind:key`` (``family:host-oom``), or None."""
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    if not answers:
        return None
    return f"{answers[0].kind}:{answers[0].match.entry.key}"


def check_out_of_scope(rows: list[dict], count: int) -> None:
    """``count`` records, each labelled out-of-scope with error output."""
    assert len(rows) == count
    assert all(r["label"]["family"] == "out-of-scope" and r["error"].strip() for r in rows)


def claimed_only_known(rows: list[dict], known: dict[str, str]) -> dict[str, str]:
    """The records kb claims (id -> its first answer), which must all be among ``known``."""
    claimed = {r["id"]: got for r in rows if (got := top(r["error"])) is not None}
    assert set(claimed) <= set(known), {k: v for k, v in claimed.items() if k not in known}
    return claimed
