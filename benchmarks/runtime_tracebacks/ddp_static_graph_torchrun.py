# family: ddp-reducer
# mode: torchrun
# expect: static_graph
# note: torchrun; static_graph=True but a layer is skipped after the first iteration
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 8)

    def forward(self, x, step):
        return self.b(self.a(x)) if step < 2 else self.a(x)


dist.init_process_group("gloo")
model = DDP(Net(), static_graph=True)
for step in range(4):
    model(torch.randn(2, 8), step).sum().backward()
