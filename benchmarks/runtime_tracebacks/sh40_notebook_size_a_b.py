# family: shape-mismatch
# set: runtime-40
# mode: ipython
# expect: must match the size of tensor b
# note: notebook; a per-token weight vector built for 8 tokens multiplied with a 6-token loss
import torch
import _tiny
model = _tiny.llama()
ids = torch.tensor([[5, 6, 7, 8, 9, 10]])
# %%
logits = model(input_ids=ids).logits
per_token = torch.nn.functional.cross_entropy(logits[0], ids[0], reduction="none")
weights = torch.ones(8)
loss = (per_token * weights).mean()
