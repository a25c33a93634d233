# family: ddp-reducer
# set: runtime-40
# mode: torchrun
# expect: Expected to have finished reduction|did not receive grad|unused
# note: torchrun, 2 gloo ranks; a hand-written DDP loop where a gating branch skips the second expert on odd steps
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 8)

    def forward(self, x, step):
        return self.a(x) if step % 2 else self.b(self.a(x))


model = DDP(Gate())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    loss = model(torch.randn(4, 8), step).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
