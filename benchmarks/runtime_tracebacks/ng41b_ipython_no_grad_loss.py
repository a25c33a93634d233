# family: no-grad-fn
# set: runtime-41
# wave: 2
# mode: ipython
# expect: does not require grad|grad_fn
# note: IPython: a training step written inside the evaluation cell's torch.no_grad() block
import torch
import _tiny
model = _tiny.llama()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
# %%
ids = torch.tensor([[1, 5, 6, 7]])
with torch.no_grad():
    loss = model(ids, labels=ids).loss
    loss.backward()
