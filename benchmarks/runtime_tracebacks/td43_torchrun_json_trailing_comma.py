# family: training-data
# set: runtime-43
# mode: torchrun
# expect: JSON|json|DatasetGenerationError|ArrowInvalid|parse
# note: torchrun, 2 gloo ranks: each rank loads a hand-edited JSON array file with a trailing comma
import os
import torch.distributed as dist
from datasets import load_dataset

dist.init_process_group("gloo")
path = f"/tmp/runtime43/data-{os.environ['RANK']}.json"
with open(path, "w") as f:
    f.write('[{"instruction": "say hi", "output": "hi"},\n {"instruction": "say bye", "output": "bye"},\n]\n')
ds = load_dataset("json", data_files=path, split="train")
