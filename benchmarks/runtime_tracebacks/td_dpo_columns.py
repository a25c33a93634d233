# family: training-data
# expect: chosen
# note: DPOTrainer on a dataset with "prompt"/"good"/"bad" columns instead of prompt/chosen/rejected
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

ds = Dataset.from_dict({"prompt": ["question"] * 8, "good": ["answer"] * 8, "bad": ["the cat"] * 8})
cfg = DPOConfig(output_dir="/tmp/dpo-out", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = DPOTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer())
trainer.train()
