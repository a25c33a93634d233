"""(turn 48, issue 26: start-up) `kb diagnose`'s one-screen text is built from screen_document (kb/diagnose/document.py),
which holds only the fields the screen reads: the text must be the one diagnosis_document's full document gives, for
every shape of answer the screen prints (a case, a family and its candidates, each basis, the API history, notes,
follow-on errors, no answer with and without a root error, `--env`'s machine), and the command must print it.
(benchmarks/startup_fixture_docs.py compares every dev fixture's and example's text with another tree's.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_reader
from kb.diagnose.document import diagnosis_document, screen_document
from kb.diagnose.input import open_input
from kb.diagnose.machine import MachineEvidence
from kb.knowledge.index import load_index
from kb.render.diagnosis import format_diagnosis

try:  # (where main moved the one sanitiser: kb/render/sanitize.py)
    from kb.render.sanitize import sanitize_data
except ImportError:
    from kb.cli.output import sanitize_data

REPO = Path(__file__).resolve().parent.parent
DEV = REPO / "tests" / "fixtures" / "diagnose"
SHAPES = [
    *sorted((REPO / "examples").glob("*.txt")),
    DEV / "dev" / "bf16-dolly-11.txt",  # a case
    DEV / "dev" / "embidx-rbert-5.txt",  # a family whose candidate case matched
    DEV / "dev" / "lossnan-qwen3-799.txt",  # family-keyword: the screen prints the evidence
    DEV / "dev" / "drift-33-ai-toolkit-51.txt",  # family-learned
    DEV / "dev" / "drift-36-SPPO-7.txt",  # family-prior
    DEV / "dev" / "drift-32-trl-6168.txt",  # a case with the API history
    DEV / "dev" / "drift-14-tas-3.txt",  # a family the API history made precise
    DEV / "runtime-38" / "ad_output_root.txt",  # more than three answers
    DEV / "runtime-38" / "ho_alloc.txt",  # the versions the fix is written for
    DEV / "dev" / "oomfrag-maddog-11.txt",  # numbers
    DEV / "dev" / "drift-58-trl-2290.txt",  # an answer, and the root error a follow-on one
    DEV / "dev" / "drift-33-PSMNet-20.txt",  # notes
    DEV / "dev" / "h2a-embidx-e5v-7.txt",  # no answer, facts read from the log
    DEV / "dev" / "runtime-46-trl-1164.txt",  # no answer, only follow-on errors
    DEV / "dev" / "drift-14-OLMo-813.txt",  # no answer, no error
    DEV / "dev" / "runtime-47-unsloth-1530.txt",  # no answer, notes
    DEV / "dev" / "drift-71-TLDR-5.txt",  # no answer, a root error
]


@pytest.fixture(scope="module")
def knowledge():  # noqa: ANN201 - kb.knowledge's model
    return load_index()


def texts(path: Path, knowledge, machine: MachineEvidence | None = None) -> tuple[str, str]:  # noqa: ANN001
    """The one screen from the full document and from screen_document, both sanitized as `kb diagnose` does."""
    diagnosis = diagnose_reader(open_input(str(path)), knowledge, machine)
    full = format_diagnosis(sanitize_data(diagnosis_document(diagnosis)), width=80)
    return full, format_diagnosis(sanitize_data(screen_document(diagnosis)), width=80)


@pytest.mark.parametrize("path", SHAPES, ids=lambda p: p.name)
def test_screen_is_the_full_documents_text(path: Path, knowledge) -> None:  # noqa: ANN001
    assert path.is_file()
    full, screen = texts(path, knowledge)
    assert screen == full


def test_screen_with_the_machines_evidence(knowledge) -> None:  # noqa: ANN001
    """`kb diagnose --env`: the machine's evidence weighed, its notes (a risk of a case no answer names) shown."""
    machine = MachineEvidence({"gpu": "T4"}, {"torch": "2.4.1"}, {"dtype-double-vs-float": (["it fits"], [])},
                              [("other-case", "a risk", "kb show KB9999")])
    full, screen = texts(REPO / "examples" / "dtype-double-vs-float.txt", knowledge, machine)
    assert "this machine (kb env) has a risk [other-case]" in full
    assert screen == full


def test_the_screen_builds_less(knowledge) -> None:  # noqa: ANN001
    """What it leaves out: the answers after the first but for their names, the errors, the top answer's why."""
    diagnosis = diagnose_reader(open_input(str(REPO / "examples" / "dtype-double-vs-float.txt")), knowledge, None)
    doc = screen_document(diagnosis)
    assert len(doc["matches"]) >= 2
    assert "why" not in doc["matches"][0] and "errors" not in doc
    assert set(doc["matches"][1]) == {"kind", "id", "slug", "confidence"}


def test_the_command_prints_the_screen(tmp_path: Path, capsys: pytest.CaptureFixture[str], knowledge) -> None:  # noqa: ANN001
    from kb.cli.diagnose import DiagnoseOptions, run_diagnose

    path = REPO / "examples" / "dtype-double-vs-float.txt"
    assert run_diagnose(DiagnoseOptions(file=str(path), width=80)) == 0
    full, _ = texts(path, knowledge)
    assert capsys.readouterr().out == full
