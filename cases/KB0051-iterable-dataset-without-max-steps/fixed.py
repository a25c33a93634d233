"""Fine-tune a causal LM with the Trainer on a dataset read as a stream (an IterableDataset) with max_steps."""

import tempfile

from datasets import Dataset
from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)

rows = Dataset.from_dict({"text": tiny.texts(16)})
rows = rows.map(lambda batch: tok(batch["text"], truncation=True, max_length=32),
                batched=True, remove_columns=["text"])
stream = rows.to_iterable_dataset()  # what load_dataset(..., streaming=True) returns: rows without a length
print("train_dataset:", type(stream).__name__)

# a stream has no length: say how many optimizer steps to run
args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=4, max_steps=2,
                         logging_steps=1, report_to="none", use_cpu=True, save_strategy="no")
trainer = Trainer(model=model, args=args, train_dataset=stream, processing_class=tok,
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
