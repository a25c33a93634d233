# family: ddp-reducer
# case: KB0026-ddp-unused-parameters
# set: runtime-42
# expect: reduction|unused
# note: torch.multiprocessing.spawn, 2 gloo ranks: DDP over a Llama plus a value head used only every other step
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
import _tiny


class WithHead(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = _tiny.llama()
        self.value = torch.nn.Linear(16, 1)

    def forward(self, ids, with_value):
        out = self.lm(input_ids=ids, labels=ids, output_hidden_states=True)
        return out.loss + (self.value(out.hidden_states[-1]).mean() if with_value else 0)


def worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    model = DDP(WithHead())
    for step in range(3):
        model(torch.randint(4, 20, (2, 8)), with_value=step == 0).backward()


if __name__ == "__main__":
    import socket
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()  # noqa: E702
    mp.spawn(worker, args=(2, port), nprocs=2)
