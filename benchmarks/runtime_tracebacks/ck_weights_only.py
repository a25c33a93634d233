# family: checkpoint-io
# expect: Weights only load failed
# note: torch.load of a training-state file holding a custom object (torch >= 2.6 weights_only default)
import tempfile
import torch


class RunState:
    def __init__(self):
        self.step = 100
        self.best = 0.5


path = tempfile.mktemp(suffix=".pt")
torch.save({"model": torch.nn.Linear(2, 2).state_dict(), "state": RunState()}, path)
ckpt = torch.load(path)
