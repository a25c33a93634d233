# family: checkpoint-io
# set: runtime-42
# expect: weights_only|Unsupported global
# note: torch.load (weights_only by default) of a checkpoint that holds a NumPy array beside the state dict
import tempfile
import numpy as np
import torch
import _tiny

path = tempfile.mktemp(suffix=".pt")
torch.save({"model": _tiny.llama().state_dict(), "rng": np.random.get_state(), "step": 100}, path)
ckpt = torch.load(path)
