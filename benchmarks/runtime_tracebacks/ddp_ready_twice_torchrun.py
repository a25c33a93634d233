# family: ddp-reducer
# case: KB0027-ddp-reentrant-checkpoint-ready-twice
# mode: torchrun
# expect: ready only once
# note: torchrun, 2 gloo ranks; find_unused_parameters=True with reentrant activation checkpointing
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(2))

    def forward(self, x):
        for layer in self.layers:
            x = checkpoint(layer, x, use_reentrant=True)
        return x


dist.init_process_group("gloo")
model = DDP(Net(), find_unused_parameters=True)
x = torch.randn(4, 8, requires_grad=True)
model(x).sum().backward()
