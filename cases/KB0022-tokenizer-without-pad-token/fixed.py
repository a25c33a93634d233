"""Fine-tune a causal LM whose tokenizer ships without a pad token, padding each batch in the collator."""

import tempfile

from datasets import Dataset
from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer(pad=False)  # like GPT-2, Llama, Mistral base tokenizers: no pad_token
tok.pad_token = tok.eos_token  # the fix: pad with an existing token (padded positions are masked)
model = tiny.causal_lm(tok)
model.config.pad_token_id = tok.pad_token_id

dataset = Dataset.from_dict({"text": tiny.texts(16)})
dataset = dataset.map(lambda batch: tok(batch["text"], truncation=True, max_length=32),
                      batched=True, remove_columns=["text"])

args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=4, max_steps=2,
                         logging_steps=1, report_to="none", use_cpu=True, save_strategy="no")
trainer = Trainer(model=model, args=args, train_dataset=dataset, processing_class=tok,
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
