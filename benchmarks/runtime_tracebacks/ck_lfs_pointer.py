# family: checkpoint-io
# expect: load key
# note: a git-lfs pointer file cloned in place of the .bin weights, read by torch.load
import tempfile
import torch

path = tempfile.mktemp(suffix="pytorch_model.bin")
with open(path, "w") as f:
    f.write("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 4939\n")
state = torch.load(path, map_location="cpu", weights_only=False)
