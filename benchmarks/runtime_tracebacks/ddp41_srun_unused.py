# family: ddp-reducer
# case: KB0026-ddp-unused-parameters
# set: runtime-41
# mode: torchrun
# expect: did not receive grad|unused parameters|find_unused_parameters
# note: torchrun, 2 ranks, tqdm over the steps; a model whose auxiliary head is used only every other step under DDP
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from tqdm import tqdm

dist.init_process_group("gloo")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.aux = torch.nn.Linear(8, 1)

    def forward(self, x, step):
        h = self.body(x)
        return h.sum() + (self.aux(h).sum() if step % 2 == 0 else 0)


model = DDP(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in tqdm(range(4), desc="train"):
    loss = model(torch.randn(4, 8), step)
    loss.backward()
    opt.step()
    opt.zero_grad()
