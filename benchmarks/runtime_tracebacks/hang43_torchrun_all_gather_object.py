# family: hang
# set: runtime-43
# mode: torchrun
# expect: Timed out|timeout|timed out
# note: torchrun, 2 gloo ranks, 5 s timeout: rank 1 skips all_gather_object of its predictions (its eval loop ended early)
import datetime
import time
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
preds = ["a", "b"] * (dist.get_rank() + 1)
out = [None, None]
if dist.get_rank() == 0:
    dist.all_gather_object(out, preds)
else:
    time.sleep(25)
