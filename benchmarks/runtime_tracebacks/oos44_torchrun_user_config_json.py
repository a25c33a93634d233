# family: none
# set: runtime-44
# mode: torchrun
# expect: JSONDecodeError|Expecting
# note: out of scope: torchrun, 2 ranks: the script's own experiment config (not a checkpoint, not a dataset) has a trailing comma
import json
import os
import torch.distributed as dist

path = "/tmp/runtime44-exp-config.json"
if not os.path.exists(path):
    with open(path, "w") as f:
        f.write('{"lr": 0.0002, "epochs": 3,}\n')
with open(path) as f:
    cfg = json.load(f)
