# family: host-oom
# set: runtime-44
# wave: 2
# mode: pyc
# expect: MemoryError|allocate|memory
# note: python -c: the merged model's weights read with safe_open/get_tensor into a job whose memory cap is below one tensor's size
import os, resource, tempfile
import torch
from safetensors import safe_open
from safetensors.torch import save_file
path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
save_file({"lm_head.weight": torch.zeros(8192, 8192)}, path)
vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**27, vm + 2**27))
with safe_open(path, framework="pt") as f:
    weights = {k: f.get_tensor(k) for k in f.keys()}
