"""What `kb diagnose` leaves unimported for an input that does not need it (issue 26, start-up), and that leaving it
out changes no answer: the API-drift stage (kb/diagnose/drift.py) is imported only when drift_stage_needed says it
may do something, and attach_drift run where it says no changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from devset_documents import NOT_READ, drift_gate_of_text
from kb.diagnose.diagnosis import diagnose_lines, drift_stage_needed
from kb.knowledge.examples import in_pending_set, pending_sets
from kb.knowledge.registry import load_knowledge

REPO = Path(__file__).resolve().parent.parent
# every fixture but a set whose first score is pending (a sealed batch: a failure's message would tell its answer)
_PENDING = pending_sets(REPO / "tests" / "fixtures" / "diagnose" / "manifest.toml")
DEV = sorted(p for p in (REPO / "tests" / "fixtures" / "diagnose").rglob("*.txt")
             if not in_pending_set(p, _PENDING))
DTYPE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
DRIFT = "ImportError: cannot import name 'AdamW' from 'transformers' (/usr/lib/python3/site-packages/transformers/__init__.py)\n"
DEVICE = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n"
WEIGHTS = ("_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two "
           "options, do those steps only if you trust the source of the checkpoint.\n")

# (startswith: kb.apidrift.*); the priors stage's rules serve only an input no signature matched; a case's
# reproductions are never read by a diagnosis; the index is built only where its cache is cold (modules_after warms it);
# (turn 42) the index hands out its tables without kb.knowledge.tables; itertools (~0.12 ms to import) serves only
# the search of a text of PRESENCE_MIN_CHARS or more (kb/diagnose/stream.py)
LAZY = ("kb.diagnose.drift", "kb.apidrift", "binascii", "kb.knowledge.compare", "kb.diagnose.prior_rules",
        "kb.knowledge.reproductions", "kb.knowledge.index_build", "kb.knowledge.tables", "itertools")


def modules_after(text: str, tmp_path: Path) -> set[str]:
    """The modules `kb diagnose` (kb.cli's main, as bin/kb runs it) has imported once it answered ``text``, with its
    caches warm (the first run in a fresh cache folder builds the index and the advice stage's facts)."""
    source = tmp_path / "input.txt"
    source.write_text(text, encoding="utf-8")
    code = ("import sys; sys.argv = ['kb', 'diagnose', %r]\n"
            "from kb.cli import main; rc = main()\n"
            "print(' '.join(sorted(sys.modules)), file=sys.stderr); raise SystemExit(rc)") % str(source)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update({"PYTHONPATH": str(REPO), "KB_CACHE_DIR": str(tmp_path / "cache")})
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env,
                              timeout=120)
        assert proc.returncode in (0, 1), proc.stderr
    return set(proc.stderr.split())


@pytest.mark.parametrize(("text", "lazy"), [
    (DTYPE, LAZY),
    # the OOM answer's numbers stage compares sizes (kb.knowledge.compare)
    (OOM, ("kb.diagnose.drift", "kb.apidrift", "binascii", "kb.diagnose.prior_rules", "kb.knowledge.reproductions",
             "kb.knowledge.index_build", "kb.knowledge.tables", "itertools")),
    # device-mismatch's fix names no version-dependent keyword: no versions stage (kb.diagnose.advice)
    (DEVICE, (*LAZY, "kb.diagnose.advice")),
])
def test_a_plain_error_imports_neither_the_drift_stage_nor_what_only_rare_inputs_need(text: str, lazy: tuple[str, ...],
                                                                                       tmp_path: Path) -> None:
    loaded = modules_after(text, tmp_path)
    assert "kb.diagnose.diagnosis" in loaded and "kb.diagnose.versions" in loaded  # (the run did diagnose)
    assert not {m for m in loaded if m.startswith(lazy)}, sorted(m for m in loaded if m.startswith(lazy))


@pytest.mark.parametrize("text", [DRIFT, WEIGHTS])
def test_a_drift_form_imports_the_drift_stage(text: str, tmp_path: Path) -> None:
    assert "kb.diagnose.drift" in modules_after(text, tmp_path)


@pytest.mark.parametrize("path", DEV, ids=lambda p: p.name)
def test_where_the_stage_is_not_needed_attach_drift_changes_nothing(path: Path,
                                                                    devset_drift_gate: dict[Path, str | None]) -> None:
    """For every dev-set input: when drift_stage_needed says no, attach_drift run anyway leaves the answers as they
    are (no drift section, no answer added); when it says yes the pipeline ran it (the same answers as before, which
    benchmarks/answers_snapshot.py compares). The check is tests/devset_documents.py's drift_gate_verdict; for the
    inputs one of the run's shared passes diagnoses (the dev set's documents, the runtime sets' answers: tests/conftest.py
    devset_drift_gate) it ran there, on that pass's diagnosis, else it runs here on the input diagnosed by itself."""
    verdict = devset_drift_gate.get(path.resolve(), NOT_READ)
    if verdict == NOT_READ:
        verdict = drift_gate_of_text(path.read_text(encoding="utf-8", errors="replace"), load_knowledge())
    assert verdict is None, verdict


@pytest.mark.parametrize("text", [DTYPE, OOM, DEVICE])
def test_the_versions_stage_runs_where_a_fix_has_a_keyword_placeholder(text: str) -> None:
    # diagnose_chunks imports and runs attach_advice only when an answer's fix holds "{kw:" (attach_advice's own test)
    knowledge = load_knowledge()
    answers = diagnose_lines([text], knowledge).answers
    assert answers
    placeholders = any("{kw:" in a.match.entry.fix_template for a in answers)
    assert placeholders == (text != DEVICE)
    if placeholders:
        assert any(a.advice_for or a.keywords for a in answers if "{kw:" in a.match.entry.fix_template)


def test_the_gate_says_yes_for_what_attach_drift_reads() -> None:
    knowledge = load_knowledge()
    for text in (DRIFT, WEIGHTS):
        diagnosis = diagnose_lines([text], knowledge)
        assert drift_stage_needed(diagnosis.answers, diagnosis.errors, knowledge), text
        assert any(a.drift is not None for a in diagnosis.answers), text
    silent = diagnose_lines(["ValueError: something unrelated happened\n"], knowledge)
    assert not silent.answers and drift_stage_needed(silent.answers, silent.errors, knowledge)
    assert not drift_stage_needed([], [], knowledge)


def test_a_lazy_table_reads_as_the_table_it_holds() -> None:
    """kb/knowledge/indexed.py LazyTable (priors.toml's sections in the cache's head): every way of reading it gives
    the table, in its order, whichever sections were read first."""
    import json
    import marshal
    import pickle

    from kb.knowledge.indexed import LazyTable
    from kb.knowledge.tables import small_tables

    table = small_tables()["priors"]
    for first in (None, *table):
        lazy = LazyTable({k: marshal.dumps(v, 2) for k, v in table.items()})
        assert len(lazy) == len(table) and bool(lazy)
        if first is not None:
            assert lazy[first] == table[first] and lazy.get(first) == table[first] and first in lazy
        assert "no such section" not in lazy and lazy.get("no such section", 7) == 7
        with pytest.raises(KeyError):
            lazy["no such section"]
        assert list(lazy) == list(table) and list(lazy.items()) == list(table.items())
        assert lazy == table and dict(lazy) == table and {**lazy} == table and lazy.copy() == table
        assert json.dumps(lazy) == json.dumps(table) and pickle.loads(pickle.dumps(lazy)) == table
        assert repr(lazy) == repr(table)
    lazy = LazyTable({k: marshal.dumps(v, 2) for k, v in table.items()})
    lazy["added"] = {"x": 1}  # a change decodes every section first: nothing is lost, the order is the table's
    assert list(lazy) == [*table, "added"] and len(lazy) == len(table) + 1
    del lazy["added"]
    assert lazy == table and lazy.pop("process") == table["process"] and "process" not in lazy


def test_the_index_gives_priors_as_the_table_file_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.knowledge.index import load_index
    from kb.knowledge.indexed import LazyTable
    from kb.knowledge.tables import small_tables

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    load_index()  # built, written
    warm = load_index()  # from the head
    assert isinstance(warm.tables["priors"], LazyTable)
    assert warm.tables["priors"]["process"] == small_tables()["priors"]["process"]
    assert warm.tables == small_tables()


def test_a_one_line_diagnosis_imports_no_functools_or_collections(tmp_path: Path) -> None:
    """functools (and the collections, operator, reprlib, keyword and types it pulls in) cost `kb diagnose` ~2.5 ms of
    start-up, a tenth of what kb adds to `python -c pass` (turn 41: a functools.lru_cache in kb/diagnose/match.py put
    them on the path; a dict memo does the same)."""
    modules = modules_after(DTYPE, tmp_path)
    assert not {"functools", "collections", "reprlib"} & modules


def test_the_command_imports_no_atexit_unless_a_handler_may_be_registered(tmp_path: Path) -> None:
    """(turn 42) bin/kb runs the exit handlers itself before os._exit (kb/cli/__init__.py script) only when the atexit
    module was imported: a warm run imports none; the first run, whose new regexes the cache saves at exit (its
    handler: kb/knowledge/precompiled.py), still writes them."""
    source = tmp_path / "input.txt"
    source.write_text(DTYPE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KB_", "PYTHONDONTWRITEBYTECODE"))}
    env.update({"KB_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)})  # (bin/kb drops its own folder)
    runs = [subprocess.run([sys.executable, "-X", "importtime", str(REPO / "bin" / "kb"), "diagnose", str(source)],
                           capture_output=True, text=True, env=env, timeout=120) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0] and runs[0].stdout == runs[1].stdout
    imported = [{line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if "|" in line} for r in runs]
    assert "atexit" in imported[0] and list((tmp_path / "cache").glob("regex-*.bin"))  # written at the first exit
    assert "atexit" not in imported[1] and "kb.knowledge.tables" not in imported[1]


def test_a_one_line_text_builds_no_token_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """(turn 44) Redaction builds the secrets table's ~150 token rules only for a text one of them may apply to: a
    one-line input (which ends in a line end, so the wrapped-token search was reached) with no rule's keyword builds
    none (~0.1-0.2 ms of `kb diagnose`'s start-up); a text of two lines, whose wraps are searched, builds them."""
    from kb.diagnose import redact
    from kb.diagnose.redact import rules

    load_knowledge()  # the index's tables: the secrets table the rules are built from
    for name, empty in (("_RULES", []), ("_BUILT", {}), ("_KEYWORDLESS", [])):
        monkeypatch.setattr(rules, name, empty)
    monkeypatch.setattr(redact, "_SEEN", {})
    assert redact.secret_spans(DTYPE) == []
    assert not rules._RULES
    assert redact.secret_spans("RuntimeError: expected mat1 and mat2\nto have the same dtype\n") == []
    assert rules._RULES and len(rules._RULES[0]) > 100
