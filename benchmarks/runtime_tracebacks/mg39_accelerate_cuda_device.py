# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-39
# wave: 1
# mode: accelerate
# expect: CUDA|cuda
# note: accelerate launch --cpu on a script that moves its model with torch.cuda.set_device(local rank) (GPU recipe), CPU-only torch
import os
import torch
from accelerate import Accelerator

acc = Accelerator(cpu=True)
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
