# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-44
# mode: nbclient
# expect: CUDA|cuda|compiled
# note: jupyter execute: a notebook sets torch.set_default_device('cuda') before building the model, torch is the CPU build
import torch
torch.set_default_device("cuda")
# %%
import _tiny
model = _tiny.llama()
