# family: hang
# set: runtime-42
# wave: 2
# expect: monitoredBarrier|monitored_barrier|failed to pass|timed out|Timed out
# note: torch.multiprocessing.spawn, 2 gloo ranks: rank 1 stays in its data preparation; rank 0's monitored_barrier(timeout=5s) names it
import datetime
import os
import socket
import time
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    if rank == 1:
        time.sleep(20)
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=5))


def port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    mp.spawn(worker, args=(2, port()), nprocs=2)
