# family: multi-gpu-launch
# set: runtime-42
# mode: torchrun
# expect: rank|world
# note: torchrun, 2 ranks: init_process_group with a hard-coded world_size=4 (the launcher started 2)
import datetime
import torch.distributed as dist

dist.init_process_group("gloo", world_size=4, timeout=datetime.timedelta(seconds=10))
dist.barrier()
