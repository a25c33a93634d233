"""The corpus's records by id (corpus/reports-*.jsonl, corpus/README.md), for tests that parse real report shapes."""

from __future__ import annotations

import importlib.util
import json
from functools import lru_cache
from pathlib import Path
from types import ModuleType

import pytest

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
CORPUS_SCRIPT = CORPUS.parent / "scripts" / "corpus.py"


def corpus_script() -> ModuleType:
    """scripts/corpus.py as a module (it is a script, not a package): a fresh one each call."""
    spec = importlib.util.spec_from_file_location("kb_corpus_script", CORPUS_SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def corpus_answers() -> dict[tuple[str, str], str | None]:
    """scripts/corpus.py's answer to every report of the corpus's batches, by its (error, title): kb's answer depends
    on the text only (tests/test_frequency.py; tests/conftest.py computes it once per run)."""
    from kb.knowledge.registry import load_knowledge

    module, knowledge = corpus_script(), load_knowledge()
    return {(r["error"], r["title"]): module.answer(r, knowledge) for path in module.batch_files() for r in module.read(path)}


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


def record_of(report_id: str) -> dict:
    """The corpus record ``report_id`` whole (a record the corpus lacks is a KeyError, not a skip: usable at
    collection, in a test's parameters)."""
    return _records()[report_id]


def report_text(report_id: str) -> str:
    """A corpus record's error output, or its title when it shows none (a KeyError when the corpus lacks it)."""
    found = record_of(report_id)
    return found["error"] if found["error"].strip() else found["title"]
