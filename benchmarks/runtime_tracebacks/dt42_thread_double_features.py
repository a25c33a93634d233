# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# set: runtime-42
# expect: dtype|Double|double
# note: a worker thread scores float64 NumPy features with a float32 linear probe (Exception in thread)
import threading
import numpy as np
import torch

probe = torch.nn.Linear(16, 2)


def score():
    feats = torch.from_numpy(np.random.rand(4, 16))
    return probe(feats).softmax(-1)


t = threading.Thread(target=score, name="scorer")
t.start()
t.join()
