# family: hang
# expect: Timed out|timed out
# note: init_process_group(world_size=2) started on one node only; the other never joins the rendezvous
import datetime
import os
import torch.distributed as dist

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
dist.init_process_group("gloo", rank=0, world_size=2, timeout=datetime.timedelta(seconds=5))
