# family: training-data
# set: runtime-44
# expect: NoneType|None|TypeError|ValueError
# note: SFTTrainer on a prompt/completion dataset where a few completions are missing (None from a merged CSV)
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

data = Dataset.from_dict({"prompt": ["the cat", "hello", "the dog", "a cat"],
                          "completion": ["sat on the mat", None, "sat", None]})
cfg = SFTConfig(output_dir="/tmp/sft-out", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True,
                save_strategy="no")
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=data, processing_class=_tiny.tokenizer())
trainer.train()
