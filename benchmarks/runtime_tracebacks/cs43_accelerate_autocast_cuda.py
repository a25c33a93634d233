# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-43
# mode: accelerate
# expect: CUDA|cuda|compiled|accelerator
# note: accelerate launch, 2 processes: a loop that moves each batch to 'cuda' by hand (device hard-coded) on a CPU-only torch
import torch
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
model = torch.nn.Linear(8, 2)
optimizer = torch.optim.AdamW(model.parameters())
model, optimizer = accelerator.prepare(model, optimizer)
batch = torch.randn(4, 8).to("cuda", non_blocking=True)
loss = model(batch).sum()
