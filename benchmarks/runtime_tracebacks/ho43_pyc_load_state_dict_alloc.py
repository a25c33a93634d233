# family: host-oom
# set: runtime-43
# mode: pyc
# expect: can't allocate|DefaultCPUAllocator|memory
# note: python -c in a memory-capped notebook kernel (RLIMIT_AS, 2 GiB above what it holds): 4 GiB zeros tensors for an fp32 state dict copy
import resource, torch
vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**31, vm + 2**31))
state = {"embed": torch.zeros(2**30, dtype=torch.float32), "lm_head": torch.zeros(2**30, dtype=torch.float32)}
