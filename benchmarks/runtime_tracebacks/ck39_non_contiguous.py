# family: checkpoint-io
# set: runtime-39
# wave: 1
# expect: contiguous
# note: safetensors save_file of a state dict holding a transposed (non-contiguous) weight from a merge
import torch
from safetensors.torch import save_file

w = torch.randn(16, 32)
save_file({"lm_head.weight": w.t(), "bias": torch.zeros(16)}, "/tmp/runtime39-nc.safetensors")
