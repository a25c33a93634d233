# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# set: runtime-39
# wave: 1
# mode: accelerate
# expect: Double|double
# note: accelerate launch, 2 CPU processes; features from NumPy left float64 into a float32 model
import numpy as np
import torch
from accelerate import Accelerator

acc = Accelerator(cpu=True)
model = acc.prepare(torch.nn.Linear(5, 1))
out = model(torch.from_numpy(np.random.randn(4, 5)))
