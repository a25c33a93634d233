# family: ddp-reducer
# set: runtime-42
# wave: 2
# expect: ready only once|marked as ready twice|reduction
# note: torch.multiprocessing.spawn, 2 gloo ranks: DDP(find_unused_parameters=True) over a block run twice through reentrant torch.utils.checkpoint
import os
import socket
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.checkpoint import checkpoint


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = torch.nn.Linear(8, 8)

    def forward(self, x):
        x = checkpoint(self.block, x, use_reentrant=True)
        return checkpoint(self.block, x, use_reentrant=True)


def worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    model = torch.nn.parallel.DistributedDataParallel(Tied(), find_unused_parameters=True)
    model(torch.randn(2, 8, requires_grad=True)).sum().backward()


def port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    mp.spawn(worker, args=(2, port()), nprocs=2)
