# family: host-oom
# set: runtime-44
# expect: SIGKILL|signal 9|terminated with signal
# note: torch.multiprocessing.spawn of 2 training processes; one is ended by SIGKILL (as the kernel's OOM killer does) while it loads its data shard
import os
import signal
import torch
import torch.multiprocessing as mp


def train(rank, world_size):
    shard = [torch.zeros(1024, 1024) for _ in range(8)]
    if rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    print(rank, len(shard))


if __name__ == "__main__":
    mp.spawn(train, args=(2,), nprocs=2, join=True)
