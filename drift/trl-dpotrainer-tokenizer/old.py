"""DPOTrainer(tokenizer=...), as trl <= 0.11 examples wrote it."""
import tempfile

from datasets import Dataset
from trl import DPOConfig, DPOTrainer

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)
dataset = Dataset.from_dict({
    "prompt": ["the model answers"] * 4,
    "chosen": [" in a short friendly sentence"] * 4,
    "rejected": [" about rain"] * 4,
})
args = DPOConfig(output_dir=tempfile.mkdtemp(), max_steps=1, report_to="none", bf16=False)
trainer = DPOTrainer(model=model, args=args, train_dataset=dataset, tokenizer=tok)
print("kb-drift built", type(trainer).__name__)
