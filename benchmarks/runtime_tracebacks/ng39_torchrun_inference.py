# family: no-grad-fn
# set: runtime-39
# wave: 2
# mode: torchrun
# expect: does not require grad
# note: torchrun, DDP on 2 gloo ranks; the loss computed inside torch.inference_mode() (a scoring helper reused in training)
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = DDP(torch.nn.Linear(8, 1))
with torch.inference_mode():
    loss = model(torch.randn(4, 8)).pow(2).mean()
loss.backward()
