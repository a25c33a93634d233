"""A weight-shared (ALBERT-style, "looped") block under DDP, checkpointed once per use.

Fixed: use_reentrant=False. The non-reentrant checkpoint keeps every use of the block in the one
autograd graph of the step, so the engine accumulates the block's gradient over its 3 uses and
fires each parameter's hook once. 2 CPU processes, gloo.
"""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)


class LoopedEncoder(torch.nn.Module):
    def __init__(self, dim: int = 32, loops: int = 3) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(64, dim)
        self.block = torch.nn.Sequential(torch.nn.LayerNorm(dim), torch.nn.Linear(dim, dim), torch.nn.GELU())
        self.loops = loops

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h = self.embed(ids)
        for _ in range(self.loops):
            h = h + checkpoint(self.block, h, use_reentrant=False)
        return h.pow(2).mean()


model = DDP(LoopedEncoder())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
ids = torch.randint(0, 64, (4, 8), generator=torch.Generator().manual_seed(rank))
for step in range(2):
    loss = model(ids)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
if rank == 0:
    print("kb-measure steps=2")
dist.destroy_process_group()
