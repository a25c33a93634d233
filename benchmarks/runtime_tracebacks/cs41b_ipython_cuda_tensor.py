# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-41
# wave: 2
# mode: ipython
# expect: not compiled with CUDA|CUDA
# note: IPython: inputs created directly on "cuda" with a CPU-only torch
import torch
import _tiny
model = _tiny.llama()
# %%
ids = torch.tensor([[1, 5, 6]], device="cuda")
