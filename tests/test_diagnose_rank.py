"""Issue #23.6: answers are ranked by how much evidence matched, not by the cases' ids.

A 4-bit 14B OOM on a 15 GB T4 is KB0005 (single-gpu-14b-oom); KB0035 (batch x sequence too large)
matches the same message and a hint of any Trainer log. The run's facts read from the log (the model's
size, its quantization, the card) are evidence for KB0005, and equal scores are ordered by the amount
of matched evidence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.environment import EnvironmentScanner
from kb.diagnose.stream import chunk_lines
from kb.knowledge.registry import load_knowledge

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


def answers_for(text: str) -> list[tuple[str, str]]:
    d = diagnose_lines(text.splitlines(keepends=True), load_knowledge())
    return [(a.kind, a.match.entry.slug) for a in d.answers]


@pytest.mark.parametrize("name", ["qwen14b-4bit-t4-oom-traceback.txt", "qwen14b-4bit-t4-oom-message.txt"])
def test_4bit_14b_oom_on_a_t4_is_kb0005(name: str) -> None:
    ranked = answers_for((EXAMPLES / name).read_text(encoding="utf-8"))
    assert ranked[0] == ("case", "single-gpu-14b-oom")
    assert ("case", "batch-times-sequence-too-large") in ranked[1:]


def test_without_the_runs_facts_the_message_alone_does_not_name_kb0005() -> None:
    """The prose line names the model and the quantization; without it the same paste is KB0035's (its hint)."""
    text = (EXAMPLES / "qwen14b-4bit-t4-oom-message.txt").read_text(encoding="utf-8").split("\n", 1)[1]
    assert answers_for(text)[0] == ("case", "batch-times-sequence-too-large")


def test_evidence_is_counted_and_breaks_equal_scores() -> None:
    d = diagnose_lines((EXAMPLES / "qwen14b-4bit-t4-oom-traceback.txt").open(encoding="utf-8"), load_knowledge())
    by_slug = {a.match.entry.slug: a.match for a in d.answers}
    kb0005, kb0035 = by_slug["single-gpu-14b-oom"], by_slug["batch-times-sequence-too-large"]
    assert kb0005.strength > kb0035.strength
    assert any(e.startswith("environment: quant = 4bit") for e in kb0005.evidence)
    assert any(e.startswith("environment: model_size_b = 14") for e in kb0005.evidence)


def test_equal_scores_rank_the_match_with_more_evidence_first() -> None:
    from kb.diagnose.match import Match, rank_key

    class Entry:
        key = kind = "x"

    weak = Match(Entry(), None, None, 0.9, {}, strength=1)  # type: ignore[arg-type]
    strong = Match(Entry(), None, None, 0.9, {}, strength=3)  # type: ignore[arg-type]
    higher = Match(Entry(), None, None, 0.95, {}, strength=0)  # type: ignore[arg-type]
    assert sorted([weak, strong, higher], key=rank_key) == [higher, strong, weak]


@pytest.mark.parametrize(("line", "facts"), [
    ('model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", load_in_8bit=True)',
     {"model": "meta-llama/Llama-2-7b-hf", "model_size_b": "7", "quant": "8bit"}),
    ("/root/.cache/huggingface/hub/models--mistralai--Mixtral-8x7B-v0.1/snapshots/0/config.json",
     {"model": "mistralai/Mixtral-8x7B-v0.1", "model_size_b": "56"}),
    ('model_id = "unsloth/Qwen2.5-14B-Instruct-bnb-4bit"',
     {"model": "unsloth/Qwen2.5-14B-Instruct-bnb-4bit", "model_size_b": "14", "quant": "4bit"}),
    ("logits: torch.Size([4, 2048, 151936])", {"batch": "4", "seq": "2048", "vocab": "151936"}),
    ("--per_device_train_batch_size 2 --max_seq_length 4096", {"per_device_batch": "2", "batch": "2", "seq": "4096"}),
    ("BitsAndBytesConfig(load_in_4bit=False)", {}),
    ("/usr/local/lib/python3.10/dist-packages/torch/nn/modules/linear.py", {}),
])
def test_the_runs_facts_read_from_the_log(line: str, facts: dict[str, str]) -> None:
    scanner = EnvironmentScanner()
    list(scanner.scan(chunk_lines([line])))
    assert scanner.facts == facts
