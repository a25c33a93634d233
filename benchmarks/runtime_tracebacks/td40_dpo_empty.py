# family: training-data
# set: runtime-40
# expect: StopIteration|Error
# note: DPOTrainer on a preference set filtered down to nothing (a length filter that dropped every row)
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

ds = Dataset.from_dict({"prompt": ["hello"] * 4, "chosen": ["world"] * 4, "rejected": ["cat"] * 4})
ds = ds.filter(lambda r: len(r["prompt"]) > 100)
cfg = DPOConfig(output_dir="/tmp/dpo40-empty", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
DPOTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer()).train()
