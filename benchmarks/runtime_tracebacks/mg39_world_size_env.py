# family: multi-gpu-launch
# set: runtime-39
# wave: 1
# expect: world_size|WORLD_SIZE|rank|MASTER
# note: init_process_group(init_method="env://") with RANK and WORLD_SIZE set by a job script but no MASTER_ADDR
import os
import torch.distributed as dist

os.environ.update(RANK="0", WORLD_SIZE="2")
dist.init_process_group("gloo", init_method="env://")
