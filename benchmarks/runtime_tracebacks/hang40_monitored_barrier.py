# family: hang
# set: runtime-40
# mode: torchrun
# expect: monitoredBarrier|monitored_barrier|failed to pass
# note: torchrun, 2 gloo ranks; rank 1 stuck in its data preparation while rank 0 waits at a monitored barrier (5 s)
import time
from datetime import timedelta
import torch.distributed as dist

dist.init_process_group("gloo")
if dist.get_rank() == 1:
    time.sleep(20)
dist.monitored_barrier(timeout=timedelta(seconds=5))
