"""trl's SFTTrainer on the tiny model with a plain-text dataset (runs on trl 0.15 and trl 1.16)."""

from __future__ import annotations

from datasets import Dataset
from trl import SFTConfig, SFTTrainer

import tiny_setup as common


def train_and_report() -> None:
    tok = common.tokenizer()
    lm = common.model(tok)
    counter = common.RowCounter(lm)
    trainer = SFTTrainer(
        model=lm, args=SFTConfig(**common.args_kwargs()),
        train_dataset=Dataset.from_dict({"text": common.texts()}), processing_class=tok,
    )
    trainer.train()
    common.report(trainer, counter, lm)
