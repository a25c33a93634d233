# family: loss-nan
# set: runtime-44
# wave: 2
# expect: nan|NaN
# note: a single-process accelerate loop with anomaly detection on: an auxiliary loss takes the square root of a difference that goes negative
import torch
from accelerate import Accelerator

torch.autograd.set_detect_anomaly(True)
accelerator = Accelerator(cpu=True)
model = torch.nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = accelerator.prepare(model, optimizer)
out = model(torch.randn(4, 8))
aux = torch.sqrt(out[:, 0] - out[:, 1]).mean()
accelerator.backward(out.pow(2).mean() + aux)
