# family: multi-gpu-launch
# set: runtime-39
# wave: 1
# mode: torchrun
# expect: local_rank|unrecognized|required
# note: torchrun on a script whose argparse still requires --local_rank (torch.distributed.launch passed it, torchrun does not)
import argparse
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, required=True)
args = parser.parse_args()
dist.init_process_group("gloo")
