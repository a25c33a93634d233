# family: cuda-setup
# set: runtime-42
# expect: accelerator|CUDA|pin
# note: tensor.pin_memory() on a CPU-only machine (no accelerator to pin for)
import torch

batch = torch.randn(4, 16)
pinned = batch.pin_memory()
