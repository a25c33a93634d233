# family: ddp-reducer
# set: runtime-44
# mode: accelerate
# expect: static_graph|graph has changed|unused|ready
# note: accelerate launch, 2 processes: DDP asked for static_graph=True (DistributedDataParallelKwargs) on a model that skips its adapter on some steps
import torch
from accelerate import Accelerator, DistributedDataParallelKwargs


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.adapter = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x, step):
        h = self.body(x)
        if step % 2 == 0:
            h = h + self.adapter(h)
        return self.head(h)


accelerator = Accelerator(cpu=True, kwargs_handlers=[DistributedDataParallelKwargs(static_graph=True)])
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = accelerator.prepare(model, optimizer)
for step in range(4):
    loss = model(torch.randn(4, 8), step).sum()
    accelerator.backward(loss)
    optimizer.step()
    optimizer.zero_grad()
