# family: training-data
# set: runtime-43
# wave: 2
# expect: slice|out of range|split
# note: an SFT script selecting load_dataset(..., split='train[100:200]') from a 4-row local file before SFTTrainer
import json
import os
import tempfile
import _tiny
from datasets import load_dataset
from trl import SFTConfig, SFTTrainer

d = tempfile.mkdtemp()
p = os.path.join(d, "data.jsonl")
open(p, "w").write("\n".join(json.dumps({"text": "hello world"}) for _ in range(4)) + "\n")
train = load_dataset("json", data_files=p, split="train[100:200]")
trainer = SFTTrainer(model=_tiny.llama(), processing_class=_tiny.tokenizer(), train_dataset=train,
                     args=SFTConfig(output_dir="/tmp/sft43e", max_steps=1, report_to=[], use_cpu=True))
