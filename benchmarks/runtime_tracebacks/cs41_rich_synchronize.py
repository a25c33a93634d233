# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-41
# expect: not compiled with CUDA|CUDA
# note: rich traceback; a timing helper calls torch.cuda.synchronize() on a CPU-only torch
from rich.traceback import install

install(width=110)
import time
import torch
import _tiny

model = _tiny.llama()
t0 = time.time()
model(torch.tensor([[1, 2, 3]]))
torch.cuda.synchronize()
print(time.time() - t0)
