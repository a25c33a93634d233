# family: loss-nan
# set: runtime-43
# wave: 2
# mode: torchrun
# expect: nan|NaN
# note: torchrun, 2 gloo ranks under DDP, anomaly detection on: a token-averaged loss divides by a mask count that is 0 on one batch
import torch
import torch.distributed as dist

torch.autograd.set_detect_anomaly(True)
dist.init_process_group("gloo")
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
out = model(torch.randn(4, 8)).squeeze(-1)
mask = torch.zeros(4)
loss = (out * mask).sum() / mask.sum()
loss.backward()
