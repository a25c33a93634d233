# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-42
# mode: pytest
# expect: not compiled with CUDA|CUDA
# note: pytest: a test asks torch.cuda.get_device_properties(0).total_memory on a CPU-only torch build
import torch


def test_gpu_memory_budget():
    total = torch.cuda.get_device_properties(0).total_memory
    assert total > 8 * 2**30
