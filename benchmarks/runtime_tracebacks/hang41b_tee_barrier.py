# family: hang
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: timed out|Timed out|timeout|Timeout
# note: torchrun --tee 3, 2 ranks, gloo timeout 5 s: rank 1 skips the barrier's partner call (an early return on an empty shard)
import datetime
import time
import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
if dist.get_rank() == 0:
    t = torch.ones(1)
    dist.all_reduce(t)
else:
    time.sleep(20)
