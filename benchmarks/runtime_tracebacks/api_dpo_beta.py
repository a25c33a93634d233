# family: api-drift
# expect: beta
# note: DPOTrainer(beta=...) from an older trl recipe
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

ds = Dataset.from_dict({"prompt": ["question"] * 4, "chosen": ["answer"] * 4, "rejected": ["the cat"] * 4})
cfg = DPOConfig(output_dir="/tmp/dpo-out3", max_steps=1, report_to=[], use_cpu=True)
trainer = DPOTrainer(model=_tiny.llama(), ref_model=None, args=cfg, beta=0.1, train_dataset=ds,
                     processing_class=_tiny.tokenizer())
