# family: checkpoint-io
# set: runtime-40
# wave: 2
# mode: logprefix
# expect: header|HeaderTooLarge|deserializ
# note: a containerised job's log; safetensors load_file of a git-lfs pointer left in place of the weights
import os
import tempfile
from safetensors.torch import load_file

path = os.path.join(tempfile.mkdtemp(prefix="lfs40-"), "adapter_model.safetensors")
with open(path, "w") as f:
    f.write("version https://git-lfs.github.com/spec/v1\noid sha256:9c0e1b7d\nsize 33554432\n")
state = load_file(path)
