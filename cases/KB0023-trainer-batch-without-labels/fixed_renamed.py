"""Fine-tune a causal LM with the Trainer; the targets are tokenized into a column named "target"."""

import tempfile

from datasets import Dataset
from transformers import Trainer, TrainingArguments, default_data_collator

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)


def tokenize(batch):
    enc = tok(batch["text"], padding="max_length", truncation=True, max_length=16)
    enc["target"] = [[t if m else -100 for t, m in zip(ids, mask)]
                     for ids, mask in zip(enc["input_ids"], enc["attention_mask"])]
    return enc


dataset = Dataset.from_dict({"text": tiny.texts(16)}).map(tokenize, batched=True, remove_columns=["text"])
dataset = dataset.rename_column("target", "labels")  # the name the model's forward takes
print("columns:", dataset.column_names)

args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=4, max_steps=2,
                         logging_steps=1, report_to="none", use_cpu=True, save_strategy="no")
trainer = Trainer(model=model, args=args, train_dataset=dataset, processing_class=tok,
                  data_collator=default_data_collator)
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
