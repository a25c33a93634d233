"""The runtime-39 fixtures as regression examples: real output of the turn-39 programs of benchmarks/runtime_tracebacks/
(their ``set: runtime-39`` header; CPU; torch 2.13, transformers 5.24, peft 0.21, trl 1.16, accelerate 1.15, datasets 5.2,
huggingface_hub 2.4: labels.toml's [versions]), many of them through a wrapper: Trainer.train, SFTTrainer, torchrun and
accelerate launch (torch's elastic ChildFailedError table after the ranks' tracebacks), a notebook (IPython), a script
that prints the exception instead of raising it, a logging.exception / logging.error line, a log collector's timestamps.

They are not in the dev manifest (its entries are public reports with their address); labels.toml labels them. The
first score (benchmarks/results/devset-runtime-39-first-score.txt) was taken before kb was changed for them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

FIXTURES = Path(__file__).parent / "fixtures" / "diagnose" / "runtime-39"
LABELS = tomllib.loads((FIXTURES / "labels.toml").read_text(encoding="utf-8"))
ENTRIES = LABELS["label"]


def _answers(name: str) -> list:
    with open(FIXTURES / name, encoding="utf-8") as handle:
        return diagnose_lines(handle, load_knowledge()).answers


def _family(answer) -> str:
    entry = answer.match.entry
    return entry.family if answer.kind == "case" else entry.key


def test_every_fixture_is_labelled_once_with_a_known_family() -> None:
    files = [e["file"] for e in ENTRIES]
    assert sorted(files) == sorted(p.name for p in FIXTURES.glob("*.txt")) and len(set(files)) == len(files)
    assert {e["family"] for e in ENTRIES} <= {f.key for f in load_knowledge().families}
    assert LABELS["versions"]["transformers"] and len(ENTRIES) >= 60
    # the wrappers the set is for: each is there
    assert {"torchrun", "accelerate", "ipython", "logprefix"} <= {e["mode"] for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"][:-4] for e in ENTRIES])
def test_runtime_fixture(entry: dict) -> None:
    answers = _answers(entry["file"])
    assert answers, "no answer"
    assert _family(answers[0]) == entry["family"], (entry["family"], _family(answers[0]))
    if entry["case"]:
        assert answers[0].kind == "case" and answers[0].match.entry.id == entry["case"].split("-")[0], \
            (entry["case"], answers[0].kind, answers[0].match.entry.key)
