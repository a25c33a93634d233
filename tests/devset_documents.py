"""The dev set's documents as kb gives them (the real reader, the shipped knowledge), computed once per test run.

Two readings, each the one that several test files compare with or check:

- ``originals()``: each dev fixture's JSON document as `kb diagnose FILE` writes it (``document``: the bytes through
  the real reader, kb/diagnose/input.py). tests/test_prefilter.py and tests/test_speed_paths.py each compare the dev
  set read another way (prefilter off, other line ends, a memo off, the index) with these;
- ``text_documents()``: each dev fixture's and example's document from its text (``diagnose_lines`` of the file
  opened as UTF-8, errors replaced), which tests/test_render.py renders at three widths and
  tests/test_no_template_markup.py searches for template markup.

Each was computed by every test file (and under pytest-xdist by every worker) that needed it: the suite's slowest
setups. tests/conftest.py's session fixtures ``devset_originals`` and ``devset_text_documents`` compute each once per
run, whichever worker asks first, and hand the others a copy.
"""

from __future__ import annotations

import functools
import io
import json
import traceback
from pathlib import Path

from kb.diagnose.diagnosis import diagnose_lines, diagnose_reader
from kb.diagnose.document import diagnosis_document
from kb.diagnose.input import LogReader
from kb.knowledge.examples import devset_manifest, examples_manifest, load_examples
from kb.knowledge.paths import folder
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


def text_document(path: Path, knowledge: object | None = None) -> dict:
    """The document of ``path``'s text (read as UTF-8, errors replaced) through ``diagnose_lines``."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        return diagnosis_document(diagnose_lines(handle, knowledge or load_knowledge()))  # type: ignore[arg-type]


def text_inputs() -> list[Path]:
    """The inputs of test_render (the dev set's and the examples' manifest entries) and of test_no_template_markup
    (every examples/*.txt and dev/*.txt), each once, resolved."""
    listed = [manifest.parent / e["file"] for manifest in (MANIFEST, examples_manifest()) for e in load_examples(manifest)]
    found = sorted(Path(folder("examples")).glob("*.txt")) + sorted((MANIFEST.parent / "dev").glob("*.txt"))
    return list(dict.fromkeys(path.resolve() for path in listed + found))


def text_documents() -> dict[Path, dict | str]:
    """``text_document`` of every ``text_inputs()`` path, keyed by the resolved path; where diagnose raised, the
    traceback (a text) instead, which ``taken`` fails with for the tests of that path only."""
    knowledge = load_knowledge()
    out: dict[Path, dict | str] = {}
    for path in text_inputs():
        try:
            out[path] = text_document(path, knowledge)
        except Exception:  # noqa: BLE001 - reported by the test that reads this path
            out[path] = traceback.format_exc()
    return out


def taken(documents: dict[Path, dict | str], path: Path) -> dict:
    """``path``'s document from ``text_documents()``; fails with the traceback where diagnose raised on it."""
    doc = documents[path.resolve()]
    if isinstance(doc, str):
        raise AssertionError(f"kb diagnose raised on {path.name}:\n{doc}")
    return doc
