"""The runtime-38 fixtures as regression examples: real tracebacks of today's libraries, printed by the small failing
programs of benchmarks/runtime_tracebacks/ (CPU; torch 2.13, transformers 5.24, peft 0.21, trl 1.16, accelerate 1.15,
datasets 5.2, huggingface_hub 2.4: labels.toml's [versions]).

They are not in the dev manifest (its entries are public reports with their address); labels.toml labels them. The
first score (benchmarks/results/devset-runtime-38-first-score.txt) was taken before kb was changed for them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

FIXTURES = Path(__file__).parent / "fixtures" / "diagnose" / "runtime-38"
LABELS = tomllib.loads((FIXTURES / "labels.toml").read_text(encoding="utf-8"))
ENTRIES = LABELS["label"]

# Fixtures kb leaves unanswered, and why; they must stay unanswered (a wrong family costs more than silence).
SILENT = {
    # anomaly mode's NaN error is any autograd program's: loss-nan's signature asks for a fine-tuning frame, and this
    # custom loss has none.
    "ln_anomaly.txt": "loss-nan's anomaly signature requires a frame of the fine-tuning stack",
}
# Case-labelled fixtures whose top answer is the family, not the case, and why.
FAMILY_ONLY = {
    "mu_unknown_type.txt": "the model type (qwen9_moe) is invented: no release of transformers has it",
    "dt_half_linear_cpu.txt": "a lone float16 Linear: none of the model frames (q_proj, self_attn, projector) KB0020 asks for",
}


def _answers(name: str) -> list:
    with open(FIXTURES / name, encoding="utf-8") as handle:
        return diagnose_lines(handle, load_knowledge()).answers


def _family(answer) -> str:
    entry = answer.match.entry
    return entry.family if answer.kind == "case" else entry.key


def test_every_fixture_is_labelled_once_with_a_known_family() -> None:
    files = [e["file"] for e in ENTRIES]
    assert sorted(files) == sorted(p.name for p in FIXTURES.glob("*.txt")) and len(set(files)) == len(files)
    families = {f.key for f in load_knowledge().families}
    assert {e["family"] for e in ENTRIES} <= families
    assert LABELS["versions"]["transformers"] and len(ENTRIES) >= 60
    assert set(SILENT) | set(FAMILY_ONLY) <= set(files)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"][:-4] for e in ENTRIES])
def test_runtime_fixture(entry: dict) -> None:
    answers = _answers(entry["file"])
    if entry["file"] in SILENT:
        assert answers == [] or _family(answers[0]) == entry["family"], [_family(a) for a in answers]
        return
    assert answers, "no answer"
    assert _family(answers[0]) == entry["family"], (entry["family"], _family(answers[0]))
    if entry["case"] and entry["file"] not in FAMILY_ONLY:
        assert answers[0].kind == "case" and answers[0].match.entry.id == entry["case"].split("-")[0], \
            (entry["case"], answers[0].kind, answers[0].match.entry.key)
