# family: multi-gpu-launch
# set: runtime-42
# expect: Accelerator|notebook|initialized
# note: notebook_launcher(num_processes=2) called after an Accelerator was already made in the notebook
from accelerate import Accelerator, notebook_launcher

acc = Accelerator(cpu=True)


def train():
    Accelerator(cpu=True).print("hello")


notebook_launcher(train, num_processes=2)
