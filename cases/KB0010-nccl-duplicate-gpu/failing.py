"""A data-parallel training step launched with more processes than visible GPUs.

Each process picks "its" GPU as local_rank modulo the GPU count, a common way to write
one-process-per-GPU code; with 2 processes and 1 visible GPU both land on cuda:0. The
first collective (an all-reduce of gradients) makes NCCL build its communicator and check
the devices.
"""

import os

import torch
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
device = torch.device("cuda", local_rank % torch.cuda.device_count())
torch.cuda.set_device(device)
dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
print(f"rank {rank}/{world}: {torch.cuda.device_count()} visible GPU(s), using {device}", flush=True)

grad = torch.full((1024,), float(rank + 1), device=device)
dist.all_reduce(grad)
torch.cuda.synchronize()
if rank == 0:
    print(f"kb-measure allreduce_sum={grad[0].item():g}")
dist.destroy_process_group()
