# family: loss-nan
# set: runtime-43
# mode: accelerate
# expect: nan|NaN
# note: accelerate launch, 2 processes, anomaly detection on: a hand-written loss takes log of a probability that underflowed to 0
import torch
from accelerate import Accelerator

torch.autograd.set_detect_anomaly(True)
accelerator = Accelerator(cpu=True)
model = torch.nn.Linear(8, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = accelerator.prepare(model, optimizer)
logits = model(torch.randn(2, 8)) * 1e4
probs = torch.softmax(logits, dim=-1)
loss = -(torch.log(probs) * probs).sum()
accelerator.backward(loss)
