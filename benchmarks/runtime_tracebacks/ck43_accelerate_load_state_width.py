# family: checkpoint-io
# set: runtime-43
# mode: accelerate
# expect: size mismatch|shape
# note: accelerate launch, 2 processes: accelerator.load_state of a state saved by a run whose model was twice as wide
import os
import torch
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
wide = accelerator.prepare(torch.nn.Linear(16, 4))
accelerator.save_state("/tmp/runtime43/state43")
accelerator.wait_for_everyone()
accelerator.free_memory()
narrow = accelerator.prepare(torch.nn.Linear(8, 4))
accelerator.load_state("/tmp/runtime43/state43")
