# family: checkpoint-io
# set: runtime-43
# mode: logprefix
# expect: weights_only|Unpickl|pickle
# note: a containerised job's log: from_pretrained of a folder whose pytorch_model.bin pickled a custom object beside the weights
import os
import tempfile
import torch
import _tiny
from transformers import AutoModelForCausalLM


class RunInfo:
    def __init__(self, step):
        self.step = step


folder = tempfile.mkdtemp(prefix="ckpt-")
model = _tiny.llama()
model.config.save_pretrained(folder)
state = dict(model.state_dict())
state["run_info"] = RunInfo(500)
torch.save(state, os.path.join(folder, "pytorch_model.bin"))
AutoModelForCausalLM.from_pretrained(folder)
