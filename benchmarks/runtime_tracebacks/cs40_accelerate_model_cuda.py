# family: cuda-setup
# set: runtime-40
# mode: accelerate
# expect: Torch not compiled with CUDA enabled
# note: accelerate launch on a CPU-only torch; a script that still moves the model with .cuda() before prepare
import torch
from accelerate import Accelerator

acc = Accelerator(cpu=True)
model = torch.nn.Linear(4, 4).cuda()
