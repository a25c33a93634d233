# family: cuda-setup
# mode: torchrun
# expect: NCCL
# note: torchrun with the nccl backend on a CPU-only torch
import torch.distributed as dist

dist.init_process_group("nccl")
