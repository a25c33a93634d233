# family: hang
# set: runtime-40
# wave: 2
# mode: torchrun
# expect: wait timeout|[Tt]imeout
# note: torchrun, 2 gloo ranks; rank 0 waits on the launcher's store for a key rank 1 sets only after its (stalled) preprocessing
import time
from datetime import timedelta
import torch.distributed as dist

dist.init_process_group("gloo")
store = dist.distributed_c10d._get_default_store()
if dist.get_rank() == 1:
    time.sleep(20)
    store.set("data_ready", "1")
else:
    store.wait(["data_ready"], timedelta(seconds=5))
