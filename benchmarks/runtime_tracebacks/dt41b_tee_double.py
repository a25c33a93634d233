# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: Double|double|dtype
# note: torchrun --tee 3, 2 ranks under DDP: class weights for the loss built from a NumPy array (float64)
import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = DDP(torch.nn.Linear(8, 3))
counts = np.array([10, 3, 1])
weights = torch.from_numpy(counts.sum() / counts)
loss = torch.nn.functional.cross_entropy(model(torch.randn(4, 8)), torch.tensor([0, 1, 2, 0]), weight=weights)
