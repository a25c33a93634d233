# family: multi-gpu-launch
# set: runtime-40
# mode: torchrun
# expect: rank|Rank|world
# note: torchrun with 2 processes on a script written for 4: new_group(ranks=[0, 1, 2, 3]) for tensor parallelism
import torch.distributed as dist

dist.init_process_group("gloo")
tp_group = dist.new_group(ranks=[0, 1, 2, 3])
