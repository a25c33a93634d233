# family: host-oom
# set: runtime-43
# mode: torchrun
# expect: can't allocate|DefaultCPUAllocator|memory|Killed|signal
# note: torchrun, 2 gloo ranks in a container with a memory cap (RLIMIT_AS, 1.5 GiB above what the rank holds): each rank materialises a 4 GiB embedding table
import resource
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 3 * 2**29, vm + 3 * 2**29))  # the container's cap: 1.5 GiB more than now
embed = torch.nn.Embedding(262144, 4096)
