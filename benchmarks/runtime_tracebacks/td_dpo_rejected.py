# family: training-data
# wave: 2
# expect: rejected
# note: DPOTrainer on a dataset with prompt and chosen but no rejected column
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

ds = Dataset.from_dict({"prompt": ["question"] * 8, "chosen": ["answer"] * 8})
cfg = DPOConfig(output_dir="/tmp/dpo-rej", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = DPOTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer())
trainer.train()
