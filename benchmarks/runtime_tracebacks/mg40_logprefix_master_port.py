# family: multi-gpu-launch
# set: runtime-40
# mode: logprefix
# expect: MASTER_PORT|MASTER_ADDR|RANK|WORLD_SIZE
# note: a containerised job's log; the job spec sets RANK, WORLD_SIZE and MASTER_ADDR but not MASTER_PORT
import os
import torch.distributed as dist

os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1")
os.environ.pop("MASTER_PORT", None)
dist.init_process_group("gloo", init_method="env://")
