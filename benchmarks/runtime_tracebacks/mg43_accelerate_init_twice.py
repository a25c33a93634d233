# family: multi-gpu-launch
# set: runtime-43
# mode: accelerate
# expect: twice|already initialized|initialize
# note: accelerate launch, 2 processes: the script also calls torch.distributed.init_process_group itself after making the Accelerator
import torch.distributed as dist
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
dist.init_process_group(backend="gloo")
