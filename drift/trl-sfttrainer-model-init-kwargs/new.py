"""model_init_kwargs given to SFTConfig, where trl >= 0.13.0 reads it."""
import tempfile

from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from kb.fixtures import tiny

tok = tiny.tokenizer()
model_dir = tempfile.mkdtemp()
tiny.causal_lm(tok).save_pretrained(model_dir)  # a model id (here a local folder): model_init_kwargs load it
tok.save_pretrained(model_dir)
dataset = Dataset.from_dict({"text": tiny.texts(8)})
args = SFTConfig(output_dir=tempfile.mkdtemp(), max_steps=1, report_to="none", model_init_kwargs={"torch_dtype": "float32"})
trainer = SFTTrainer(model=model_dir, args=args, train_dataset=dataset, processing_class=tok)
print("kb-drift built", type(trainer).__name__)
