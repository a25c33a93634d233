# family: ddp-reducer
# case: KB0026-ddp-unused-parameters
# mode: torchrun
# expect: reduction
# note: torchrun, 2 gloo ranks; a model with an auxiliary head the loss never uses
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.aux = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.body(x)


dist.init_process_group("gloo")
model = DDP(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(4, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if dist.get_rank() == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
