# family: training-data
# case: KB0024-sft-dataset-without-text-field
# expect: text
# note: SFTTrainer on a dataset whose text column is called "content"
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

ds = Dataset.from_dict({"content": ["the cat sat on the mat", "hello world"] * 4})
cfg = SFTConfig(output_dir="/tmp/sft-out", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer())
trainer.train()
