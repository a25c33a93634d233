# family: api-drift
# set: runtime-40
# expect: unexpected keyword argument
# note: DPOTrainer(tokenizer=...) from a 2024 DPO recipe under trl 1.x
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

ds = Dataset.from_dict({"prompt": ["hello"] * 4, "chosen": ["world"] * 4, "rejected": ["cat"] * 4})
cfg = DPOConfig(output_dir="/tmp/dpo40-tok", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
DPOTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, tokenizer=_tiny.tokenizer())
