# family: multi-gpu-launch
# set: runtime-40
# mode: accelerate
# expect: twice
# note: accelerate launch, 2 processes; the script's own setup calls init_process_group after Accelerator() already did
import torch.distributed as dist
from accelerate import Accelerator

acc = Accelerator(cpu=True)
dist.init_process_group(backend="gloo")
