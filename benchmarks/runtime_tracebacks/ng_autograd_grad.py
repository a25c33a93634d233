# family: no-grad-fn
# expect: does not require grad
# note: torch.autograd.grad for an input-gradient penalty, the input never set to require grad
import torch

model = torch.nn.Linear(4, 1)
x = torch.randn(8, 4)
out = model(x).sum()
(g,) = torch.autograd.grad(out, x, create_graph=True)
print(g.norm())
