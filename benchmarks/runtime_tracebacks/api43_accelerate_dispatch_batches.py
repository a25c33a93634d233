# family: api-drift
# set: runtime-43
# mode: accelerate
# expect: dispatch_batches|unexpected keyword
# note: accelerate launch, 2 processes: Accelerator(dispatch_batches=False) from an accelerate 0.2x example (moved to DataLoaderConfiguration)
import torch
from accelerate import Accelerator

accelerator = Accelerator(cpu=True, dispatch_batches=False, split_batches=False)
model = torch.nn.Linear(8, 2)
optimizer = torch.optim.AdamW(model.parameters())
model, optimizer = accelerator.prepare(model, optimizer)
