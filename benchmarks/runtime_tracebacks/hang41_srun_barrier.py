# family: hang
# set: runtime-41
# mode: torchrun
# expect: timed out|Timed out|timeout|Timeout
# note: torchrun, 2 ranks, gloo with a 5 s timeout: rank 0 evaluates alone (a rank-0-only eval) while rank 1 waits at the barrier
import datetime
import time
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
if dist.get_rank() == 0:
    time.sleep(20)
dist.barrier()
