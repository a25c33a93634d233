"""No model_init: the model itself (trl >= 0.15 has no replacement argument)."""
import tempfile

from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)
dataset = Dataset.from_dict({"text": tiny.texts(8)})
args = SFTConfig(output_dir=tempfile.mkdtemp(), max_steps=1, report_to="none")
trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tok)
print("kb-drift built", type(trainer).__name__)
