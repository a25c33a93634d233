# family: ddp-reducer
# case: KB0026-ddp-unused-parameters
# set: runtime-42
# expect: reduction|unused|ChildFailedError|failed
# note: accelerate's notebook_launcher with 2 CPU processes: a model whose second head takes part only on the first step
import torch
from accelerate import Accelerator, notebook_launcher


class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.aux = torch.nn.Linear(8, 8)

    def forward(self, x, aux):
        h = self.body(x)
        return self.aux(h) if aux else h


def train():
    acc = Accelerator(cpu=True)
    model = TwoHeads()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = acc.prepare(model, opt)
    for step in range(3):
        acc.backward(model(torch.randn(2, 8), aux=step == 0).sum())
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    notebook_launcher(train, num_processes=2)
