# family: checkpoint-io
# set: runtime-39
# wave: 2
# expect: Parent directory|does not exist
# note: torch.save of the training state into a run folder that was never created
import torch
import _tiny

model = _tiny.llama()
torch.save({"model": model.state_dict(), "step": 100}, "/tmp/runtime39-runs/exp-07/checkpoint-100/state.pt")
