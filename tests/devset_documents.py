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
  dev input a second time;
- ``read_states()``: each dev fixture's *read state* (``read_state``): everything the pipeline holds once the input is
  read and parsed, from which the rest of it (matching, the API history, redaction, the document) is computed.
  tests/test_prefilter.py's and tests/test_speed_paths.py's readings of the dev set that change only the reading
  (``differing``) compare it with these, and build the document only where it differs.

Each was computed by every test file (and under pytest-xdist by every worker) that needed it: the suite's slowest
setups. tests/conftest.py's session fixtures ``devset_originals`` and ``devset_text_documents`` compute each once per
run, whichever worker asks first, and hand the others a copy.
"""

from __future__ import annotations

import copy
import functools
import inspect
import io
import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from kb.diagnose import diagnosis as _pipeline
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


# -- the read state: the dev set read another way, compared where the reading ends ---------------------------------
#
# tests/test_prefilter.py (the prefilter off, CR-only and CRLF line ends, the presence test on every chunk) and
# tests/test_speed_paths.py (the continuation fast path, the run memo, the message memo off) each read the dev set
# another way and require the same document for every fixture. Each such variant changes only the reading: the bytes
# the reader (kb/diagnose/input.py) is given, or a flag of kb/diagnose/stream.py, whose code runs only while the input
# is read (stream.py is imported by diagnosis.py, which calls parse_chunks and chunk_lines, and by the scanners of
# environment.py, versions.py and priors.py, which call trigger_lines only in their scan()). The reading ends when
# diagnose_chunks' loop over parse_chunks(...) has taken its last error: parse_chunks has taken every chunk, so every
# scanner's scan() has run to its end (priors.py's _look_at_tail included) and the reader has read its last byte.
#
# What comes after (diagnose_chunks from the loop on, diagnose_reader's checks of the reader's stats, diagnosis_document
# and json.dumps) is computed from: the local variables of diagnose_chunks at that point, the reader's stats, and state
# that no variant changes (the knowledge, the same object; the process's API history and other memos of pure
# functions; match.use_priors' table, set before the loop). ``read_state`` serialises the first two completely (every
# variable, every attribute of every object reachable from them, lists and dicts in order, sets sorted, shared objects
# as references to their first place, objects of the knowledge's tables by their place there). So where two readings of
# a fixture have equal read states, their documents are equal; only where the states differ is the document built
# and compared (a difference of the state alone is no failure). Checked once over the whole dev set for each variant:
# benchmarks/results/ci-turn48a.txt. As a guard against a later stage that comes to read a variant's flag, ``differing``
# also builds and compares the full document of every FULL_EVERY-th fixture (a different share for each variant).

FULL_EVERY = 32


class _ReadingDone(BaseException):
    """Raised when the pipeline has read its input, with diagnose_chunks' local variables (a BaseException: nothing on
    the way out catches it)."""

    def __init__(self, variables: dict[str, object]) -> None:
        super().__init__("read")
        self.variables = variables


def _parse_chunks_then_stop(*args: object, **kwargs: object):  # noqa: ANN202 - a generator like parse_chunks
    yield from _PARSE_CHUNKS(*args, **kwargs)
    caller = sys._getframe(1)  # the frame that asked for the next error: diagnose_chunks' loop
    assert caller.f_code is _pipeline.diagnose_chunks.__code__, caller.f_code
    raise _ReadingDone(dict(caller.f_locals))


_PARSE_CHUNKS = _pipeline.parse_chunks


def read_state(data: bytes, knowledge: object | None = None) -> str:
    """The read state of ``data`` (as ``document`` reads it): diagnose_chunks' local variables once the input is read
    and parsed, and what diagnose_reader reads of the reader's stats, serialised (see above)."""
    knowledge = knowledge or load_knowledge()
    reader = LogReader(io.BufferedReader(io.BytesIO(data)), "fixture")  # type: ignore[arg-type]
    _pipeline.parse_chunks = _parse_chunks_then_stop
    try:
        diagnose_reader(reader, knowledge)  # type: ignore[arg-type]
    except _ReadingDone as done:
        variables = done.variables
    else:
        raise AssertionError("diagnose_reader did not read its input through diagnosis.parse_chunks")
    finally:
        _pipeline.parse_chunks = _PARSE_CHUNKS
    stats = dict(vars(reader.stats))
    # what diagnose_reader reads of bytes_read (an empty input; the size in MB its refusals print); cr_only is read
    # by no one after the reader
    bytes_read = stats.pop("bytes_read")
    stats.pop("cr_only")
    stats["bytes_read == 0"], stats["MB"] = bytes_read == 0, f"{bytes_read / 1e6:.1f}"
    return repr(_Serialiser(knowledge).value({"diagnose_chunks": variables, "reader.stats": stats}))


def read_states() -> dict[Path, str]:
    """Every dev fixture's read state with the default settings."""
    knowledge = load_knowledge()
    return {path: read_state(path.read_bytes(), knowledge) for path in FIXTURES}


def differing(originals: dict[Path, str], states: dict[Path, str], data_of: Callable[[Path], bytes | None],
              share: int, knowledge: object | None = None) -> tuple[int, list[str]]:
    """The dev set read another way (``data_of(path)``: the bytes to read, None to leave the fixture out), under the
    settings in force: (fixtures read, names of those whose document differs from ``originals``). A fixture's document
    is built where its read state differs from ``states`` (the default reading's), and for every FULL_EVERY-th fixture
    from ``share`` on."""
    knowledge = knowledge or load_knowledge()
    checked, differ = 0, []
    for i, path in enumerate(FIXTURES):
        data = data_of(path)
        if data is None:
            continue
        checked += 1
        if i % FULL_EVERY == share % FULL_EVERY or read_state(data, knowledge) != states[path]:
            if document(data, knowledge) != originals[path]:
                differ.append(path.name)
    return checked, differ


class _Serialiser:
    """A value as nested tuples of plain values, whose repr is equal for two values exactly when every part of them
    is: objects by class and every attribute (__slots__ and __dict__), lists, tuples and dicts in order, sets sorted,
    an object met again (shared, or a cycle) as a reference to where it was first met, the knowledge and every list
    and dict of its tables as their place there. A value of another kind raises TypeError: nothing is passed over."""

    def __init__(self, knowledge: object) -> None:
        self.places = _knowledge_places(knowledge)
        self.met: dict[int, int] = {}
        self.keep: list[object] = []  # (what ``met`` holds ids of stays alive)

    def value(self, v: object) -> object:
        if v is None or isinstance(v, (bool, int, float, str, bytes)):
            return v
        place = self.places.get(id(v))
        if place is not None:
            return ("knowledge", place)
        if isinstance(v, tuple):
            return ("tuple", tuple(self.value(x) for x in v))
        if id(v) in self.met:
            return ("again", self.met[id(v)])
        self.met[id(v)] = len(self.met)
        self.keep.append(v)
        if isinstance(v, list):
            return ("list", tuple(self.value(x) for x in v))
        if isinstance(v, dict):
            return ("dict", tuple((self.value(k), self.value(x)) for k, x in v.items()))
        if isinstance(v, (set, frozenset)):  # (of plain values only: a shared object's place would follow the order)
            if not all(x is None or isinstance(x, (bool, int, float, str, bytes)) for x in v):
                raise TypeError(f"read_state serialises sets of plain values only: {v!r}")
            return (type(v).__name__, tuple(sorted(repr(x) for x in v)))
        if inspect.isgenerator(v):
            if inspect.getgeneratorstate(v) != inspect.GEN_CLOSED:
                raise TypeError(f"a generator not run to its end: {v!r}")
            return ("generator", v.__qualname__, "closed")
        if hasattr(v, "__dict__") or hasattr(type(v), "__slots__"):
            names = [n for cls in type(v).__mro__ for n in getattr(cls, "__slots__", ())]
            names += list(getattr(v, "__dict__", {}))
            attributes = tuple((n, self.value(getattr(v, n)) if hasattr(v, n) else ("a slot never set",))
                               for n in sorted(set(names)))
            return ("object", f"{type(v).__module__}.{type(v).__qualname__}", attributes)
        raise TypeError(f"read_state cannot serialise {type(v)!r}")


_PLACES: dict[int, tuple[object, dict[int, str]]] = {}  # id(knowledge) -> (the knowledge, kept alive; its places)


def _knowledge_places(knowledge: object) -> dict[int, str]:
    """id of every list and dict of the knowledge's tables (and of the knowledge) -> its place there."""
    known = _PLACES.get(id(knowledge))
    if known is not None:
        return known[1]
    places: dict[int, str] = {id(knowledge): "<the knowledge>"}

    def walk(v: object, place: str) -> None:
        if isinstance(v, (dict, list)) and id(v) not in places:
            places[id(v)] = place
            for k, x in (v.items() if isinstance(v, dict) else enumerate(v)):
                walk(x, f"{place}[{k!r}]")

    walk(knowledge.tables, "tables")  # type: ignore[attr-defined]
    _PLACES[id(knowledge)] = (knowledge, places)
    return places
