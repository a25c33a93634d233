# family: dtype-mismatch
# set: runtime-41
# mode: torchrun
# expect: dtype|Half|Float
# note: torchrun, 2 ranks: a float16 LayerNorm fed float32 activations (a half-cast submodule in a float32 model)
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
norm = torch.nn.LayerNorm(16).half()
proj = torch.nn.Linear(16, 16)
out = norm(proj(torch.randn(2, 16)))
