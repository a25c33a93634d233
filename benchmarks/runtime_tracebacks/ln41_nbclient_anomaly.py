# family: loss-nan
# set: runtime-41
# mode: nbclient
# expect: nan values|returned nan
# note: a notebook with anomaly detection on: a log-probability of a zero probability times zero gives NaN in backward
import torch
torch.autograd.set_detect_anomaly(True)
# %%
logits = torch.randn(4, 3, requires_grad=True)
probs = torch.softmax(logits, -1) * torch.tensor([1.0, 0.0, 1.0])
loss = -(probs * torch.sqrt(probs)).sum() + torch.sqrt(probs).sum()
loss.backward()
