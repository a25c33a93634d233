# family: multi-gpu-launch
# set: runtime-39
# wave: 1
# mode: torchrun
# expect: device_ids
# note: torchrun, 2 gloo ranks; DDP(model, device_ids=[local_rank]) on a CPU model (a GPU recipe run on CPU)
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
local_rank = int(os.environ["LOCAL_RANK"])
model = DDP(torch.nn.Linear(8, 8), device_ids=[local_rank])
