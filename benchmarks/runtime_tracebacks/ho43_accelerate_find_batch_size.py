# family: host-oom
# set: runtime-43
# expect: No executable batch size|reached zero|allocate
# note: accelerate's find_executable_batch_size around a step whose activations outgrow the job's memory cap (RLIMIT_AS) at every batch size it tries
import resource
import torch
from accelerate.utils import find_executable_batch_size

vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**30, vm + 2**30))  # the job's memory cap: 1 GiB more than it holds now


@find_executable_batch_size(starting_batch_size=64)
def train(batch_size):
    print(f"trying batch size {batch_size}")
    acts = torch.zeros(batch_size, 2**30, dtype=torch.float32)
    return acts.sum()


train()
