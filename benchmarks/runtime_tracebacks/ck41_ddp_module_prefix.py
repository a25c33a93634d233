# family: checkpoint-io
# set: runtime-41
# expect: Missing key|Unexpected key
# note: a state dict saved from the DDP-wrapped model (keys start with module.) loaded into the bare model
import tempfile
import torch
import _tiny

model = _tiny.llama()
path = tempfile.mktemp(suffix=".pt")
torch.save({"module." + k: v for k, v in model.state_dict().items()}, path)
model.load_state_dict(torch.load(path, map_location="cpu"))
