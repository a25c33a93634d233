# family: ddp-reducer
# set: runtime-41
# mode: accelerate
# expect: requires a gradient|doesn't have any parameter
# note: accelerate launch, 2 processes: prepare() on a model frozen for evaluation (no parameter requires grad) with an optimizer
import torch
from accelerate import Accelerator
import _tiny

acc = Accelerator(cpu=True)
model = _tiny.llama()
model.requires_grad_(False)
opt = torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))])
model, opt = acc.prepare(model, opt)
