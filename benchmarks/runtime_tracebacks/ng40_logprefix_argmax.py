# family: no-grad-fn
# set: runtime-40
# mode: logprefix
# expect: does not require grad
# note: a containerised job's log; a custom reward computed from argmax of the logits (not differentiable) then backward
import torch
import _tiny

model = _tiny.llama()
ids = torch.tensor([[5, 6, 7, 8]])
pred = model(input_ids=ids).logits.argmax(-1)
loss = (pred == ids).float().mean()
loss.backward()
