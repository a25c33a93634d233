"""Completion-only loss from a prompt/completion dataset (SFTConfig.completion_only_loss, trl >= 0.20)."""
import tempfile

from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)
dataset = Dataset.from_dict({"prompt": ["the model answers"] * 8, "completion": [" in a short friendly sentence"] * 8})
args = SFTConfig(output_dir=tempfile.mkdtemp(), max_steps=1, report_to="none", bf16=False, completion_only_loss=True)
trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tok)
print("kb-drift built", type(trainer).__name__)
