# family: training-data
# set: runtime-42
# expect: NoneType|None|RemoteTraceback
# note: SFTTrainer (SFTConfig dataset_num_proc=2) over a text column with None rows (worker traceback chained)
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

ds = Dataset.from_dict({"text": ["the cat sat", None, "hello world", None] * 2})
args = SFTConfig(output_dir="/tmp/sft42-none", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True,
                 dataset_num_proc=2)
SFTTrainer(model=_tiny.llama(), args=args, train_dataset=ds, processing_class=_tiny.tokenizer())
