"""The dev set's documents as kb gives them (the real reader, the shipped knowledge), computed once per test run.

Two readings, each the one that several test files compare with or check:

- ``originals()``: each dev fixture's JSON document as `kb diagnose FILE` writes it (``document``: the bytes through
  the real reader, kb/diagnose/input.py). tests/test_prefilter.py and tests/test_speed_paths.py each compare the dev
  set read another way (prefilter off, other line ends, a memo off, the index) with these;
- ``text_documents()``: each dev fixture's and example's document from its text (``diagnose_lines`` of the file
  opened as UTF-8, errors replaced), which tests/test_render.py renders at three widths and
  tests/test_no_template_markup.py searches for template markup;
- ``text_readings()``: the same documents, each with the verdict of tests/test_startup_lazy.py's check of the API-drift
  stage's gate on the same diagnosis (``drift_gate_verdict``): that test's items read it instead of diagnosing each
  dev input a second time.

Each was computed by every test file (and under pytest-xdist by every worker) that needed it: the suite's slowest
setups. tests/conftest.py's session fixtures ``devset_originals`` and ``devset_text_documents`` compute each once per
run, whichever worker asks first, and hand the others a copy.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import traceback
from pathlib import Path

from kb.diagnose.diagnosis import diagnose_lines, diagnose_reader, drift_stage_needed
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
    return {path: doc for path, (doc, _gate) in text_readings().items()}


NOT_READ = "not read by text_readings"  # a gate verdict the test computes itself (see text_readings)


def _drift_state(diagnosis) -> list[object]:  # noqa: ANN001
    return [(a.match.entry.key, copy.deepcopy(a.drift)) for a in diagnosis.answers]


def drift_gate_before(diagnosis, knowledge) -> list[object] | None:  # noqa: ANN001
    """None where drift_stage_needed says the pipeline ran the API-drift stage; else the answers' drift state, which
    ``drift_gate_verdict`` compares with their state after attach_drift is run anyway."""
    if drift_stage_needed(diagnosis.answers, diagnosis.errors, knowledge):
        return None
    return _drift_state(diagnosis)


def drift_gate_verdict(diagnosis, knowledge, before: list[object] | None) -> str | None:  # noqa: ANN001
    """tests/test_startup_lazy.py's check: where the gate said no (``before`` given), attach_drift run anyway leaves
    the answers as they were (no drift section, no answer added). None when it holds, else what changed."""
    from kb.diagnose.drift import attach_drift

    if before is None:
        return None
    attach_drift(diagnosis.answers, knowledge, None, diagnosis.errors)
    after = _drift_state(diagnosis)
    return None if after == before else f"attach_drift changed the answers where the gate said no:\n{after!r}\n!=\n{before!r}"


def drift_gate_of_text(text: str, knowledge) -> str | None:  # noqa: ANN001
    """The gate's verdict for ``text`` diagnosed by itself (as test_startup_lazy did for every dev input)."""
    diagnosis = diagnose_lines(text.splitlines(keepends=True), knowledge)
    return drift_gate_verdict(diagnosis, knowledge, drift_gate_before(diagnosis, knowledge))


def text_readings() -> dict[Path, tuple[dict | str, str | None]]:
    """For every ``text_inputs()`` path (resolved): ``(document, gate verdict)``. The document is ``text_document``'s
    (the traceback, a text, where diagnose raised); the verdict ``drift_gate_verdict``'s on the same diagnosis once its
    document is built (diagnosis_document only reads a diagnosis: the gate and the answers' drift state are the same
    before and after it, over every input of the dev set when this was written), or
    NOT_READ where the file's lines as test_startup_lazy splits them (``str.splitlines``) are not the lines the file
    gives or where diagnose raised (then that test diagnoses it itself); where attach_drift raised, its traceback."""
    knowledge = load_knowledge()
    out: dict[Path, tuple[dict | str, str | None]] = {}
    for path in text_inputs():
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = list(handle)
            diagnosis = diagnose_lines(lines, knowledge)  # type: ignore[arg-type]
            doc: dict | str = diagnosis_document(diagnosis)
        except Exception:  # noqa: BLE001 - reported by the test that reads this path
            out[path] = (traceback.format_exc(), NOT_READ)  # (test_startup_lazy's own diagnosis raises it there)
            continue
        try:
            same = "".join(lines).splitlines(keepends=True) == lines
            gate = drift_gate_verdict(diagnosis, knowledge, drift_gate_before(diagnosis, knowledge)) if same else NOT_READ
        except Exception:  # noqa: BLE001 - reported by test_startup_lazy's item for this path
            gate = traceback.format_exc()
        out[path] = (doc, gate)
    return out


def taken(documents: dict[Path, dict | str], path: Path) -> dict:
    """``path``'s document from ``text_documents()``; fails with the traceback where diagnose raised on it."""
    doc = documents[path.resolve()]
    if isinstance(doc, str):
        raise AssertionError(f"kb diagnose raised on {path.name}:\n{doc}")
    return doc
