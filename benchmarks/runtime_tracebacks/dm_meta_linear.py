# family: device-mismatch
# expect: meta
# note: a layer left on the meta device (built under init_empty_weights, never loaded) meets a CPU input
import torch
from accelerate import init_empty_weights

with init_empty_weights():
    head = torch.nn.Linear(16, 4)
body = torch.nn.Linear(8, 16)
x = torch.randn(2, 8)
print(head(body(x)))
