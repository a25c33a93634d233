# family: no-grad-fn
# set: runtime-40
# mode: accelerate
# expect: does not require grad
# note: accelerate launch, 2 processes; the loss computed from logits.detach() (a logging copy reused as the loss)
import torch
from accelerate import Accelerator

acc = Accelerator(cpu=True)
model = acc.prepare(torch.nn.Linear(8, 3))
logits = model(torch.randn(4, 8)).detach()
loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0, 1, 2, 0]))
acc.backward(loss)
