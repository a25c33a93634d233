# family: device-side-assert
# set: runtime-40
# mode: torchrun
# expect: out of bounds
# note: torchrun, DDP on 2 gloo ranks; a 3-class head trained on labels 0..4 (a label map with more classes than the head)
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = DDP(torch.nn.Linear(8, 3))
logits = model(torch.randn(6, 8))
loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0, 1, 2, 3, 4, 1]))
loss.backward()
