# family: training-data
# set: runtime-40
# mode: torchrun
# expect: ClassLabel|stratif
# note: torchrun, 2 ranks; train_test_split(stratify_by_column="label") on a label column of strings (never cast to ClassLabel)
import torch.distributed as dist
from datasets import Dataset

dist.init_process_group("gloo")
ds = Dataset.from_dict({"text": ["a", "b", "c", "d"] * 3, "label": ["pos", "neg", "pos", "neg"] * 3})
split = ds.train_test_split(test_size=0.25, stratify_by_column="label")
