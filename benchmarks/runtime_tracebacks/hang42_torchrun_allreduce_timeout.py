# family: hang
# set: runtime-42
# mode: torchrun
# expect: Timed out|timeout|timed out
# note: torchrun, 2 gloo ranks, 5 s timeout: only rank 0 all-reduces its eval loss (an eval guarded by is_main_process)
import datetime
import time
import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
loss = torch.tensor([1.5])
if dist.get_rank() == 0:
    dist.all_reduce(loss)
else:
    time.sleep(25)
