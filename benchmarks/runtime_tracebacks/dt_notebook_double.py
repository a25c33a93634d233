# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# mode: ipython
# expect: Double
# note: notebook cells; float64 pandas-like data into a float32 model
import numpy as np
import torch
# %%
X = np.random.randn(100, 5)
model = torch.nn.Linear(5, 1)
# %%
preds = model(torch.tensor(X))
preds.shape
