# family: ddp-reducer
# case: KB0026-ddp-unused-parameters
# expect: reduction
# note: torch.multiprocessing.spawn with 2 gloo processes; a branch taken only on some steps
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 8)

    def forward(self, x, use_b):
        return self.b(self.a(x)) if use_b else self.a(x)


def worker(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29517"
    dist.init_process_group("gloo", rank=rank, world_size=world)
    model = DDP(Net())
    for step in range(3):
        model(torch.randn(2, 8), use_b=(step == 0)).sum().backward()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
