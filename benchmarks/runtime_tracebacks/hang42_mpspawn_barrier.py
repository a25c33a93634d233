# family: hang
# set: runtime-42
# expect: Timed out|timeout|timed out
# note: torch.multiprocessing.spawn, 2 gloo ranks with a 5 s timeout: rank 1 preprocesses on its own and misses rank 0's barrier
import datetime
import os
import time
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=5))
    if rank == 1:
        time.sleep(30)
    dist.barrier()


if __name__ == "__main__":
    import socket
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()  # noqa: E702
    mp.spawn(worker, args=(2, port), nprocs=2)
