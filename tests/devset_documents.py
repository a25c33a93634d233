"""The dev set's documents as `kb diagnose FILE` gives them (the real reader, the shipped knowledge), computed once
per test process: tests/test_prefilter.py and tests/test_speed_paths.py each compare the dev set read another way
(prefilter off, other line ends, a memo off, the index) with these, and each computed them itself before (the
suite's slowest setup, twice per worker)."""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path

from kb.diagnose.diagnosis import diagnose_reader
from kb.diagnose.document import diagnosis_document
from kb.diagnose.input import LogReader
from kb.knowledge.examples import devset_manifest, load_examples
from kb.knowledge.registry import load_knowledge

MANIFEST = devset_manifest()
FIXTURES = [MANIFEST.parent / e["file"] for e in load_examples(MANIFEST)]


def document(data: bytes, knowledge: object | None = None) -> str:
    """The JSON document `kb diagnose` writes for ``data`` (keys sorted)."""
    reader = LogReader(io.BufferedReader(io.BytesIO(data)), "fixture")  # type: ignore[arg-type]
    return json.dumps(diagnosis_document(diagnose_reader(reader, knowledge or load_knowledge())),  # type: ignore[arg-type]
                      sort_keys=True)


@functools.cache
def _originals() -> tuple[tuple[Path, str], ...]:
    return tuple((path, document(path.read_bytes())) for path in FIXTURES)


def originals() -> dict[Path, str]:
    """Every dev fixture's document with the default settings (a fresh dict: callers may not share edits)."""
    return dict(_originals())
