# family: host-oom
# set: runtime-42
# expect: can't allocate memory|DefaultCPUAllocator|RemoteTraceback
# note: datasets map with num_proc=2 where each row builds a tensor far beyond host RAM (the worker's error chained)
import torch
from datasets import Dataset

ds = Dataset.from_dict({"n": [1, 2, 3, 4]})
ds = ds.map(lambda r: {"x": torch.zeros(2**40, dtype=torch.float32).sum().item()}, num_proc=2)
