# family: checkpoint-io
# set: runtime-40
# mode: accelerate
# expect: Error|error
# note: accelerate launch, 2 processes; accelerator.load_state of a checkpoint folder that was never written
import torch
from accelerate import Accelerator

acc = Accelerator(cpu=True)
model = torch.nn.Linear(4, 4)
opt = torch.optim.AdamW(model.parameters())
model, opt = acc.prepare(model, opt)
acc.load_state("/tmp/r40-run/checkpoints/checkpoint_3")
