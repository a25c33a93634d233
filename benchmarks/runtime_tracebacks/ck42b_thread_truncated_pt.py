# family: checkpoint-io
# set: runtime-42
# wave: 2
# expect: central directory|PytorchStreamReader|zip
# note: a loader thread torch.loads an optimizer state whose .pt file was cut off by a full disk
import os
import tempfile
import threading
import torch

path = tempfile.mktemp(suffix=".pt")
torch.save({"state": {i: torch.randn(64, 64) for i in range(8)}}, path)
with open(path, "r+b") as f:
    f.truncate(os.path.getsize(path) // 3)


def restore():
    return torch.load(path)


t = threading.Thread(target=restore, name="optimizer-restore")
t.start()
t.join()
