# family: multi-gpu-launch
# expect: RANK|environment variable
# note: a DDP script run with plain python instead of torchrun (no RANK/WORLD_SIZE in the environment)
import torch.distributed as dist

dist.init_process_group("gloo", init_method="env://")
