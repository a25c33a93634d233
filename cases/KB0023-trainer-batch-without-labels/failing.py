"""Fine-tune a causal LM with the Trainer on tokenized text, padding batches with DataCollatorWithPadding."""

import tempfile

from datasets import Dataset
from transformers import DataCollatorWithPadding, Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)

dataset = Dataset.from_dict({"text": tiny.texts(16)})
dataset = dataset.map(lambda batch: tok(batch["text"], truncation=True, max_length=32),
                      batched=True, remove_columns=["text"])
print("columns:", dataset.column_names)

args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=4, max_steps=2,
                         logging_steps=1, report_to="none", use_cpu=True, save_strategy="no")
collator = DataCollatorWithPadding(tok)  # pads input_ids and attention_mask; makes no labels
trainer = Trainer(model=model, args=args, train_dataset=dataset, processing_class=tok, data_collator=collator)
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
