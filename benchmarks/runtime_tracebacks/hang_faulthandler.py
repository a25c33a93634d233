# family: hang
# expect: Timeout
# note: a rendezvous that never completes, dumped by faulthandler after 5 s (dump_traceback_later, as a watchdog does)
import datetime
import faulthandler
import os
import torch.distributed as dist

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29547")
faulthandler.dump_traceback_later(5, exit=True)
print("initializing process group, world size 2", flush=True)
dist.init_process_group("gloo", rank=0, world_size=2, timeout=datetime.timedelta(minutes=30))
