# family: multi-gpu-launch
# mode: torchrun-port
# expect: EADDRINUSE|address already in use
# note: torchrun --master_port on a port another job holds
import torch.distributed as dist

dist.init_process_group("gloo")
