# family: shape-mismatch
# set: runtime-40
# wave: 2
# mode: logprefix
# expect: shape|view|size
# note: a containerised job's log; custom attention code reshaping with a hard-coded head count
import torch

hidden = torch.randn(2, 5, 48)
q = hidden.view(2, 5, 8, 64)
