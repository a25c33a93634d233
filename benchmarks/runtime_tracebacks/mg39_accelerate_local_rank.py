# family: multi-gpu-launch
# set: runtime-39
# wave: 2
# mode: accelerate
# expect: local_rank
# note: accelerate launch, 2 processes, on a script whose argparse still requires --local_rank
import argparse
from accelerate import Accelerator

parser = argparse.ArgumentParser(description="finetune")
parser.add_argument("--model", default="tiny")
parser.add_argument("--local_rank", type=int, required=True)
args = parser.parse_args()
acc = Accelerator(cpu=True)
