"""A causal LM with an extra value head, trained with DistributedDataParallel (2 CPU processes, gloo).

The head is built in __init__ (for a later RL stage, or as a leftover of another recipe) but the
SFT loss never goes through it. DDP registers a gradient hook on every parameter that requires
grad; the head's hooks never fire, so the reduction of step 1 never completes and DDP refuses to
start step 2.
"""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from kb.fixtures import tiny

dist.init_process_group("gloo")
rank = dist.get_rank()
tok = tiny.tokenizer()


class LMWithValueHead(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lm = tiny.causal_lm(tok)
        self.value_head = torch.nn.Linear(self.lm.config.hidden_size, 1)  # trainable, not on the loss path

    def forward(self, input_ids: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.lm(input_ids=input_ids, labels=labels).loss


model = DDP(LMWithValueHead())
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
batch = tok(tiny.texts(8)[rank::2], return_tensors="pt", padding=True)["input_ids"]

for step in range(3):
    loss = model(batch, batch)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
if rank == 0:
    print("kb-measure steps=3")
dist.destroy_process_group()
