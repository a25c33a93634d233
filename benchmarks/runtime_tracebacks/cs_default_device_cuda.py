# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# wave: 2
# expect: CUDA
# note: torch.set_default_device("cuda") at the top of a script, CPU-only torch
import torch

torch.set_default_device("cuda")
x = torch.zeros(4)
