# family: training-data
# set: runtime-39
# wave: 1
# expect: Error|error
# note: DPOTrainer rows whose chosen/rejected are lists of messages while prompt is a plain string (mixed formats)
import _tiny
from datasets import Dataset
from trl import DPOConfig, DPOTrainer

ds = Dataset.from_dict({"prompt": ["hello"] * 8,
                        "chosen": [[{"role": "assistant", "content": "world"}]] * 8,
                        "rejected": [[{"role": "assistant", "content": "cat"}]] * 8})
cfg = DPOConfig(output_dir="/tmp/dpo39-mix", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = DPOTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer(chat_template=True))
trainer.train()
