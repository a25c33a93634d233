# family: dtype-mismatch
# mode: ipython
# wave: 3
# expect: Long|Float|dtype
# note: notebook; cross_entropy with float class indices (labels read from a float column)
import torch
import torch.nn.functional as F
logits = torch.randn(4, 3, requires_grad=True)
# %%
labels = torch.tensor([0.0, 2.0, 1.0, 1.0])
# %%
loss = F.nll_loss(F.log_softmax(logits, -1), labels)
