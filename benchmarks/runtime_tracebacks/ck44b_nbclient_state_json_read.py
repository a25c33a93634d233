# family: checkpoint-io
# set: runtime-44
# wave: 2
# mode: nbclient
# expect: JSONDecodeError|Expecting|Extra data
# note: jupyter execute: a notebook plots a run's loss curve from TrainerState.load_from_json of a checkpoint whose trainer_state.json two writers appended to
import os, tempfile
from transformers import TrainerState
ckpt = tempfile.mkdtemp(prefix="checkpoint-")
with open(os.path.join(ckpt, "trainer_state.json"), "w") as f:
    f.write('{"global_step": 10, "log_history": []}\n{"global_step": 10, "log_history": []}\n')
# %%
state = TrainerState.load_from_json(os.path.join(ckpt, "trainer_state.json"))
losses = [h["loss"] for h in state.log_history if "loss" in h]
