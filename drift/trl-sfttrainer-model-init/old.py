"""SFTTrainer(model_init=...) for a hyperparameter search, as trl <= 0.14 accepted."""
import tempfile

from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)
dataset = Dataset.from_dict({"text": tiny.texts(8)})
args = SFTConfig(output_dir=tempfile.mkdtemp(), max_steps=1, report_to="none")
trainer = SFTTrainer(model_init=lambda trial=None: tiny.causal_lm(tok), args=args, train_dataset=dataset, processing_class=tok)
print("kb-drift built", type(trainer).__name__)
