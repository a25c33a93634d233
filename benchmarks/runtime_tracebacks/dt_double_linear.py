# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# expect: Double
# note: a plain training loop fed float64 NumPy features
import numpy as np
import torch

features = np.random.rand(64, 10)
targets = np.random.rand(64, 1)
model = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    x = torch.from_numpy(features)
    y = torch.from_numpy(targets)
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
