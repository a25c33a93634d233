# family: ddp-reducer
# set: runtime-41
# mode: torchrun
# expect: same model across all ranks|inconsistent|params
# note: torchrun, 2 ranks: rank 1 builds the model with an extra layer (a config read from a per-rank file), then DDP wraps it
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
layers = [torch.nn.Linear(8, 8) for _ in range(2 + dist.get_rank())]
model = DDP(torch.nn.Sequential(*layers))
