"""The "loss is 0" keyword rules (tables/priors.toml) read a loss of 0, not a training log's ordinary records (turn 44):
"step 0 loss 2.1370" is a counter before a loss, and "loss 0.2370" a loss below 1. Both answered training-data ("the
report says the loss is 0") on a log of Trainer INFO lines before; the reports that say the loss is 0 still answer."""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

RECORD = "2025-11-21 10:00:00,123 - INFO - trainer - step {step} loss {loss} grad_norm 1.4142 learning_rate 2.0e-05\n"


def _families(text: str) -> list[str]:
    return [a.match.entry.key for a in diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers]


@pytest.mark.parametrize("text", [
    "".join(RECORD.format(step=s, loss="2.1370") for s in (0, 1, 2)),  # the counter's 0 before "loss"
    "".join(RECORD.format(step=s, loss=loss) for s, loss in ((5, "0.2370"), (6, "0.2310"))),  # a loss below 1
    "epoch 0 loss 1.2031 with SFTTrainer\n",
    "iteration 0 loss 3.5 trainer running\n",
    "step=0 loss 2.51 trainer.train()\n",
    "trainer: loss 0.53 after 100 steps, loss 0,41 at the end\n",
    "sft training: lr 1.0 loss 2.3\n",
])
def test_a_training_logs_records_are_no_loss_of_0(text: str) -> None:
    assert _families(text) == []


@pytest.mark.parametrize(("text", "family"), [
    ("SFTTrainer training loss is 0 from the first step\n", "training-data"),
    ("trainer: loss 0.0 every step after the first\n", "training-data"),
    ("the trainer gives 0 loss on my dataset\n", "training-data"),
    ("qwen2 fp16 SFT: loss is 0 with the Trainer\n", "loss-nan"),
    ("FSDP training loss = 0\n", "sharding-config"),
])
def test_a_report_of_a_loss_of_0_still_answers(text: str, family: str) -> None:
    assert _families(text)[:1] == [family]
