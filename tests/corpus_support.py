"""The corpus's records by id (corpus/reports-*.jsonl, corpus/README.md), for tests that parse real report shapes."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


@lru_cache(maxsize=1)
def _records() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in sorted(CORPUS.glob("reports-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                found = json.loads(line)
                out[found["id"]] = found
    return out


def record(report_id: str, title_when_no_error: bool = False) -> str:
    """A corpus record's error output (with ``title_when_no_error``, its title when it shows none); the test is
    skipped when the corpus lacks the record."""
    found = _records().get(report_id)
    if found is None:
        pytest.skip(f"{report_id} is not in the corpus")
    if title_when_no_error and not found["error"].strip():
        return found["title"]
    return found["error"]
