"""Plain transformers.Trainer on the tiny model, as the incident's non-trl runs used it."""

from __future__ import annotations

from datasets import Dataset
from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

import tiny_setup as common


def training_args() -> TrainingArguments:
    return TrainingArguments(**common.args_kwargs())


def train_and_report(args: TrainingArguments) -> None:
    tok = common.tokenizer()
    lm = common.model(tok)
    counter = common.RowCounter(lm)
    data = Dataset.from_dict({"text": common.texts()}).map(
        lambda row: tok(row["text"]), remove_columns=["text"]
    )
    trainer = Trainer(
        model=lm, args=args, train_dataset=data,
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False),
    )
    trainer.train()
    common.report(trainer, counter, lm)
