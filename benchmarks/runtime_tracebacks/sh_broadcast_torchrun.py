# family: shape-mismatch
# mode: torchrun
# expect: must match the size
# note: DDP on 2 gloo processes; a custom loss adds a mask built for another sequence length
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
print(f"rank {rank} of {dist.get_world_size()} ready", flush=True)
model = DDP(torch.nn.Linear(16, 16))
x = torch.randn(4, 10, 16)
mask = torch.ones(4, 12, 1)
loss = (model(x) * mask).mean()
loss.backward()
dist.destroy_process_group()
