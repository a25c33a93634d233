# family: cuda-setup
# set: runtime-40
# mode: torchrun
# expect: accelerator
# note: torchrun, FSDP (gloo) with sync_module_states=True on a machine where torch sees no GPU (CPU-only torch): FSDP refuses to run without an accelerator
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo")
model = FSDP(torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)), sync_module_states=True)
