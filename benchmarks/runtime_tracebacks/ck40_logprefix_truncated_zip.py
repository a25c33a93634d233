# family: checkpoint-io
# set: runtime-40
# mode: logprefix
# expect: central directory|PytorchStreamReader|zip
# note: a containerised job's log; torch.load of an optimizer.pt cut short (the job was preempted mid-save)
import os, tempfile  # noqa: E401 (one line: the kept output's line numbers)
import torch
import _tiny

path = os.path.join(tempfile.mkdtemp(prefix="ck40-"), "optimizer.pt")
torch.save(_tiny.llama().state_dict(), path)
with open(path, "r+b") as f:
    f.truncate(os.path.getsize(path) // 2)
state = torch.load(path)
