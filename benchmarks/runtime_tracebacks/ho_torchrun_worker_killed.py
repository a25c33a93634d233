# family: host-oom
# case: KB0015-dataloader-worker-killed
# mode: torchrun
# wave: 2
# expect: killed by signal|exited unexpectedly
# note: torchrun, DataLoader workers of rank 0 killed with SIGKILL (standing in for the OOM killer)
import os
import signal
import time
import torch
import torch.distributed as dist


class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        if dist.get_rank() == 0 and i == 9:
            os.kill(os.getpid(), signal.SIGKILL)  # the kernel's OOM killer picks this worker
        time.sleep(0.05)
        return torch.zeros(4)


dist.init_process_group("gloo")
for step, batch in enumerate(torch.utils.data.DataLoader(Data(), batch_size=4, num_workers=2)):
    if dist.get_rank() == 0:
        print(f"step {step}", flush=True)
