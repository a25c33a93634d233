# family: hang
# mode: torchrun
# expect: Timed out|timed out|Timeout
# note: torchrun, 2 gloo ranks, a 5 s collective timeout; rank 1 skips an all_reduce (evaluation only on rank 0)
import datetime
import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
t = torch.ones(4)
if dist.get_rank() == 0:
    print("rank 0: gathering eval metrics", flush=True)
    dist.all_reduce(t)
else:
    import time
    time.sleep(30)
