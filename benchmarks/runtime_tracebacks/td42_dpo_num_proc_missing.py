# family: training-data
# set: runtime-42
# expect: KeyError|chosen|rejected|RemoteTraceback
# note: DPOTrainer with dataset_num_proc=2 on rows that have 'prompt' and 'chosen' only (no 'rejected')
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

ds = Dataset.from_dict({"prompt": ["hello"] * 4, "chosen": ["world"] * 4})
args = DPOConfig(output_dir="/tmp/dpo42c", per_device_train_batch_size=2, max_steps=1, report_to=[], use_cpu=True,
                 dataset_num_proc=2)
trainer = DPOTrainer(model=_tiny.llama(), args=args, train_dataset=ds, processing_class=_tiny.tokenizer())
