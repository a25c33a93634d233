# family: multi-gpu-launch
# set: runtime-43
# mode: torchrun
# expect: rank|world
# note: torchrun, 2 gloo ranks: a script written for 4 GPUs builds a tensor-parallel group of ranks [0, 1, 2, 3]
import torch.distributed as dist

dist.init_process_group("gloo")
tp_group = dist.new_group(ranks=[0, 1, 2, 3])
