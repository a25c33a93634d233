# family: fp16-gradients
# set: runtime-40
# mode: torchrun
# expect: Attempting to unscale FP16 gradients
# note: torchrun, DDP on 2 gloo ranks; a model cast with .half() trained under a GradScaler (a GPU recipe's fp16 loop run on CPU)
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = DDP(torch.nn.Linear(8, 8).half())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
loss = model(torch.randn(4, 8).half()).float().pow(2).mean()
scaler.scale(loss).backward()
scaler.unscale_(opt)
