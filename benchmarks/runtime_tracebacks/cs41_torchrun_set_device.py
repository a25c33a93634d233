# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-41
# mode: torchrun
# expect: not compiled with CUDA|CUDA|_cuda_setDevice
# note: torchrun, 2 ranks: torch.cuda.set_device(LOCAL_RANK) on a CPU-only torch build
import os
import torch
import torch.distributed as dist

torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
