# family: checkpoint-io
# set: runtime-44
# mode: ipython
# expect: Missing key|Unexpected key|_orig_mod
# note: IPython: weights saved from a torch.compile'd model (keys prefixed _orig_mod.) loaded into the plain model
import os, tempfile
import torch
import _tiny
model = _tiny.llama()
compiled = torch.compile(model)
path = os.path.join(tempfile.mkdtemp(), "model.pt")
torch.save(compiled.state_dict(), path)
# %%
fresh = _tiny.llama()
fresh.load_state_dict(torch.load(path))
