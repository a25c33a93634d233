# family: multi-gpu-launch
# set: runtime-41
# mode: nbclient
# expect: RANK|MASTER_ADDR|environment variable
# note: a notebook that set WORLD_SIZE=2 by hand (to use both T4s), then init_process_group from the notebook's single process
import os
os.environ["WORLD_SIZE"] = "2"
os.environ["MASTER_ADDR"] = "127.0.0.1"
os.environ["MASTER_PORT"] = "29517"
# %%
import torch.distributed as dist
dist.init_process_group("gloo")
