# family: loss-nan
# expect: nan values
# note: autograd anomaly detection catching a NaN produced by sqrt of a negative (a custom loss)
import torch

torch.autograd.set_detect_anomaly(True)
w = torch.nn.Parameter(torch.randn(4))
pred = w * 2
loss = torch.sqrt(pred - 10).mean()
loss.backward()
