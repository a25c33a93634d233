# family: multi-gpu-launch
# set: runtime-41
# mode: torchrun
# expect: Default process group has not been initialized|init_process_group
# note: torchrun, 2 ranks: a script calls dist.get_rank() to pick its shard before it initialised the process group
import torch.distributed as dist

shard = dist.get_rank()
dist.init_process_group("gloo")
