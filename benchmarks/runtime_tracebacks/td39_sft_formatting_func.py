# family: training-data
# set: runtime-39
# wave: 1
# expect: Error|error
# note: SFTTrainer with a formatting_func that returns the row dict instead of a string
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

ds = Dataset.from_dict({"question": ["hello"] * 8, "answer": ["world"] * 8})
cfg = SFTConfig(output_dir="/tmp/sft39-ff", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer(),
                     formatting_func=lambda row: {"q": row["question"]})
trainer.train()
