# family: training-data
# set: runtime-39
# wave: 2
# expect: Error|error
# note: SFTTrainer over a text column with empty (None) rows left by a failed scrape
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

ds = Dataset.from_dict({"text": ["the cat sat on the mat", None, "hello world", None] * 2})
cfg = SFTConfig(output_dir="/tmp/sft39-none", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer()).train()
