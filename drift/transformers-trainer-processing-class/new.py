"""Trainer(processing_class=...), the name since transformers 4.46."""
import tempfile

from transformers import Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)
args = TrainingArguments(output_dir=tempfile.mkdtemp(), report_to="none", max_steps=1)
trainer = Trainer(model=model, args=args, processing_class=tok)
print("kb-drift built", type(trainer).__name__)
