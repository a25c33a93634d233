# family: host-oom
# expect: can't allocate memory|Cannot allocate memory
# note: a process under a 2 GiB address-space limit (ulimit -v) allocates a tensor of the full model's size
import resource
import torch

resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
weights = torch.empty(1024, 1024, 1024, dtype=torch.float32)
