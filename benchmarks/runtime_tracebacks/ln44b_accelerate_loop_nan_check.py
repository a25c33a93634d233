# family: loss-nan
# set: runtime-44
# wave: 2
# mode: accelerate
# expect: nan|NaN|finite
# note: accelerate launch, 2 processes: a hand-written loop stops when the loss is not finite (all labels -100 in its batch)
import torch
import _tiny
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
model = _tiny.llama()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
model, optimizer = accelerator.prepare(model, optimizer)
ids = torch.tensor([[1, 5, 6, 7, 2]])
labels = torch.full_like(ids, -100)
loss = model(input_ids=ids, labels=labels).loss
if not torch.isfinite(loss):
    raise ValueError(f"loss is {loss.item()} at step 0")
accelerator.backward(loss)
