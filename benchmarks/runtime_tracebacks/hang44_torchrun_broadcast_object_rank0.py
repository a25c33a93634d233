# family: hang
# set: runtime-44
# mode: torchrun
# expect: Timed out|timeout|timed out|Timeout
# note: torchrun, 2 gloo ranks, a 5 s process-group timeout: rank 0 broadcasts the run name with broadcast_object_list inside an `if rank == 0` block
import datetime
import time
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
rank = dist.get_rank()
if rank == 0:
    names = ["sft-run-0042"]
    dist.broadcast_object_list(names, src=0)
    print("run name", names[0])
else:
    time.sleep(20)
dist.destroy_process_group()
