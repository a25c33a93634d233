# family: host-oom
# set: runtime-44
# mode: pyc
# expect: allocate|memory|Cannot allocate|MemoryError
# note: python -c: a merged model's weights read with safetensors' load_file under a job memory cap below their size
import os, resource, tempfile
import torch
from safetensors.torch import load_file, save_file
path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
save_file({f"layers.{i}.weight": torch.zeros(4096, 4096) for i in range(8)}, path)
vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**28, vm + 2**28))
state = load_file(path)
