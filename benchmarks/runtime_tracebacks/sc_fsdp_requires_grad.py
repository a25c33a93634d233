# family: sharding-config
# mode: torchrun
# wave: 3
# expect: requires_grad
# note: torchrun, FSDP (gloo, CPU) over a frozen base with trainable layers in one unit, use_orig_params=False
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo")
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8))
model[0].requires_grad_(False)
model = FSDP(model, device_id=torch.device("cpu"), use_orig_params=False)
print(model)
