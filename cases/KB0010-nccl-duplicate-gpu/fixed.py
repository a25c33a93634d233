"""The same data-parallel step, launched with as many processes as visible GPUs.

The launch is the fix (processes = GPUs: here 2 processes with CUDA_VISIBLE_DEVICES=0,1). The
script also refuses to start when the launch would put two processes on one GPU, instead of
wrapping around and failing later inside NCCL.
"""

import os

import torch
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
local_world = int(os.environ["LOCAL_WORLD_SIZE"])
if local_world > torch.cuda.device_count():
    raise SystemExit(f"{local_world} processes on this node but {torch.cuda.device_count()} visible GPU(s): launch one process per GPU")
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
