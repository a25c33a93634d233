# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# set: runtime-39
# wave: 1
# expect: Double
# note: notebook-style script without IPython: the training cell catches the error and prints only str(e)
import numpy as np
import torch

model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
X = torch.from_numpy(np.random.randn(16, 5))
try:
    preds = model(X)
except Exception as e:
    print("training failed:", e)
