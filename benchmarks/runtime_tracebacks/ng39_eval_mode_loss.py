# family: no-grad-fn
# set: runtime-39
# wave: 1
# expect: does not require grad
# note: loss of a generate()-style forward under torch.inference_mode() reused for backward (an eval helper)
import torch
import _tiny

model = _tiny.llama()
ids = torch.tensor([[5, 6, 7, 8]])
with torch.inference_mode():
    loss = model(input_ids=ids, labels=ids).loss
loss.backward()
