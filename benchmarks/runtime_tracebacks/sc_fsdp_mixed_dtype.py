# family: sharding-config
# mode: torchrun
# wave: 3
# expect: uniform|dtype
# note: torchrun, FSDP (gloo, CPU) over a module holding float32 and bfloat16 parameters in one unit
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo")
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8).to(torch.bfloat16))
model = FSDP(model, device_id=torch.device("cpu"))
print(model)
