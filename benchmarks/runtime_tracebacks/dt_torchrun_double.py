# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# mode: torchrun
# wave: 2
# expect: Double
# note: torchrun, DDP on 2 gloo ranks, features from NumPy left float64
import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = DDP(torch.nn.Linear(10, 1))
x = torch.from_numpy(np.random.rand(8, 10))
print(f"rank {dist.get_rank()}: batch {tuple(x.shape)}", flush=True)
model(x).sum().backward()
