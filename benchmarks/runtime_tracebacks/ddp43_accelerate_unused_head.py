# family: ddp-reducer
# case: KB0026-ddp-unused-parameters
# set: runtime-43
# mode: accelerate
# expect: reduction|unused|did not receive grad|find_unused_parameters
# note: accelerate launch, 2 processes: a model with an auxiliary head only used on some steps, DDP without find_unused_parameters
import torch
from accelerate import Accelerator


class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.main = torch.nn.Linear(8, 2)
        self.aux = torch.nn.Linear(8, 2)

    def forward(self, x, use_aux=False):
        h = self.body(x)
        return self.aux(h) if use_aux else self.main(h)


accelerator = Accelerator(cpu=True)
model = TwoHeads()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = accelerator.prepare(model, optimizer)
for step in range(3):
    out = model(torch.randn(4, 8), use_aux=False)
    accelerator.backward(out.sum())
    optimizer.step()
    optimizer.zero_grad()
