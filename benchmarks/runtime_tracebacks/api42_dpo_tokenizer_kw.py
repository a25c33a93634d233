# family: api-drift
# set: runtime-42
# mode: accelerate
# expect: unexpected keyword argument 'tokenizer'
# note: DPOTrainer(tokenizer=...) on trl 1.16 (processing_class since trl 0.12), run under accelerate launch
import _tiny
from accelerate import Accelerator
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

Accelerator(cpu=True)
ds = Dataset.from_dict({"prompt": ["hello"] * 4, "chosen": ["world"] * 4, "rejected": ["cat"] * 4})
args = DPOConfig(output_dir="/tmp/dpo42b", per_device_train_batch_size=2, max_steps=1, report_to=[], use_cpu=True)
trainer = DPOTrainer(model=_tiny.llama(), args=args, train_dataset=ds, tokenizer=_tiny.tokenizer())
