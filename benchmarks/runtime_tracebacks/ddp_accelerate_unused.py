# family: ddp-reducer
# case: KB0026-ddp-unused-parameters
# mode: torchrun
# wave: 2
# expect: reduction|unused
# note: torchrun with an accelerate loop (Accelerator(cpu=True) wraps the model in DDP); a head the loss never uses
import torch
from accelerate import Accelerator


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.head2 = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.body(x)


acc = Accelerator(cpu=True)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model, opt = acc.prepare(model, opt)
for step in range(3):
    loss = model(torch.randn(4, 8)).pow(2).mean()
    acc.backward(loss)
    opt.step()
    opt.zero_grad()
    acc.print(f"step {step}: loss {loss.item():.4f}")
