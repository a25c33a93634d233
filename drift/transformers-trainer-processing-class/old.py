"""Trainer(tokenizer=...), the name up to transformers 4.45."""
import tempfile

from transformers import Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)
args = TrainingArguments(output_dir=tempfile.mkdtemp(), report_to="none", max_steps=1)
trainer = Trainer(model=model, args=args, tokenizer=tok)
print("kb-drift built", type(trainer).__name__)
