# family: host-oom
# case: KB0015-dataloader-worker-killed
# expect: killed by signal
# note: DataLoader worker killed with SIGKILL as the kernel's OOM killer does when the worker's RSS passes a limit
import os
import signal
import threading
import time
import torch

LIMIT = 300 * 2**20


class Big(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        self.hold = getattr(self, "hold", []) + [bytearray(60 * 2**20)]  # a cache that grows per item
        time.sleep(0.05)
        return torch.zeros(4)


def oom_killer():  # what the kernel does: kill the process whose memory passes the limit
    while True:
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    status = open(f"/proc/{pid}/status").read()
                    if f"PPid:\t{os.getpid()}\n" in status:
                        rss = int(status.split("VmRSS:")[1].split()[0]) * 1024
                        if rss > LIMIT:
                            os.kill(int(pid), signal.SIGKILL)
                except (OSError, IndexError):
                    pass
        time.sleep(0.05)


threading.Thread(target=oom_killer, daemon=True).start()
loader = torch.utils.data.DataLoader(Big(), batch_size=4, num_workers=2)
for step, batch in enumerate(loader):
    print("step", step, flush=True)
