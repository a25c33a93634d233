"""Supervised fine-tuning with trl's SFTTrainer on an instruction dataset with "instruction"/"output" columns."""

import tempfile

from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)

texts = tiny.texts(16)
dataset = Dataset.from_dict({"instruction": [t.split()[0] for t in texts], "output": texts})
print("columns:", dataset.column_names)

args = SFTConfig(output_dir=tempfile.mkdtemp(), max_steps=2, per_device_train_batch_size=4, max_length=32,
                 bf16=False, gradient_checkpointing=False, use_cpu=True, report_to="none", save_strategy="no")
trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tok,
                     formatting_func=lambda ex: f"{ex['instruction']}\n{ex['output']}")  # builds the text
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
