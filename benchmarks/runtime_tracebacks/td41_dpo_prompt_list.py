# family: training-data
# set: runtime-41
# mode: accelerate
# expect: Traceback
# note: accelerate launch, 2 processes: DPOTrainer on rows whose "chosen" is a list of messages while "prompt" is a plain string (mixed formats)
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

ds = Dataset.from_dict({"prompt": ["hello"] * 4,
                        "chosen": [[{"role": "assistant", "content": "world"}]] * 4,
                        "rejected": [[{"role": "assistant", "content": "cat"}]] * 4})
cfg = DPOConfig(output_dir="/tmp/dpo41-mixed", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
DPOTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer(chat_template=True)).train()
