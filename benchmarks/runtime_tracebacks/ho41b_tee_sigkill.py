# family: host-oom
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: SIGKILL|-9
# note: torchrun --tee 3, 2 ranks: rank 1 killed with SIGKILL (as the OOM killer does) while it loads the model
import os
import signal
import time
import torch.distributed as dist

dist.init_process_group("gloo")
print(f"rank {dist.get_rank()}: loading checkpoint shards", flush=True)
if dist.get_rank() == 1:
    time.sleep(1)
    os.kill(os.getpid(), signal.SIGKILL)
dist.barrier()
