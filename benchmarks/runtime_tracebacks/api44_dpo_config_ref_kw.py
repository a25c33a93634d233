# family: api-drift
# set: runtime-44
# expect: unexpected keyword argument|TypeError
# note: DPOTrainer with keywords of trl 0.7 (beta and max_length passed to the trainer, not DPOConfig)
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

data = Dataset.from_dict({"prompt": ["hello"] * 4, "chosen": ["world"] * 4, "rejected": ["cat"] * 4})
cfg = DPOConfig(output_dir="/tmp/dpo-out", max_steps=1, report_to=[], use_cpu=True)
trainer = DPOTrainer(_tiny.llama(), ref_model=None, args=cfg, beta=0.1, train_dataset=data,
                     processing_class=_tiny.tokenizer(), max_length=64)
