# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# set: runtime-41
# mode: srunlabel
# expect: dtype|Double|double
# note: srun --label; a regression head fed features from a NumPy array (float64) in a hand-written loop
import numpy as np
import torch

head = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
features = torch.from_numpy(np.random.rand(4, 8))
loss = head(features).mean()
