"""Fine-tune a causal LM with the Trainer on rows tokenized with their own labels, without a data collator."""

import tempfile

from datasets import Dataset
from transformers import Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)


def tokenize(batch):
    enc = tok(batch["text"], truncation=True, max_length=32)  # no padding: rows keep their own length
    enc["labels"] = [list(ids) for ids in enc["input_ids"]]
    return enc


dataset = Dataset.from_dict({"text": tiny.texts(16)}).map(tokenize, batched=True, remove_columns=["text"])
print("row lengths:", sorted({len(ids) for ids in dataset["input_ids"]}))

args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=4, max_steps=2,
                         logging_steps=1, report_to="none", use_cpu=True, save_strategy="no")
# No data_collator: the Trainer picks DataCollatorWithPadding, which pads input_ids and attention_mask only.
trainer = Trainer(model=model, args=args, train_dataset=dataset, processing_class=tok)
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
