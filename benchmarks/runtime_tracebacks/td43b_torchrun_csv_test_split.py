# family: training-data
# set: runtime-43
# wave: 2
# mode: torchrun
# expect: Unknown split|split
# note: torchrun, 2 gloo ranks: each rank loads its evaluation data with load_dataset('csv', data_files=train.csv, split='test')
import os
import torch.distributed as dist
from datasets import load_dataset

dist.init_process_group("gloo")
path = f"/tmp/runtime43/train-{os.environ['RANK']}.csv"
with open(path, "w") as f:
    f.write("text,label\nhello world,1\nthe cat,0\n")
test = load_dataset("csv", data_files=path, split="test")
