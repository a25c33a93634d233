# family: multi-gpu-launch
# mode: torchrun
# wave: 3
# expect: twice
# note: torchrun; the script initialises the process group and then a library it calls does it again
import torch.distributed as dist

dist.init_process_group("gloo")
print(f"rank {dist.get_rank()} up", flush=True)
dist.init_process_group("gloo")
