# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# set: runtime-40
# wave: 2
# mode: logprefix
# expect: Double|double
# note: a containerised job's log; tabular features from pandas (float64) into a float32 regression head
import numpy as np
import torch

head = torch.nn.Linear(6, 1)
features = torch.tensor(np.random.rand(4, 6))
pred = head(features)
