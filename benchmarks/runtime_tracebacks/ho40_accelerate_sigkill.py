# family: host-oom
# set: runtime-40
# mode: accelerate
# expect: SIGKILL|-9
# note: accelerate launch, 2 CPU processes; the second process killed with SIGKILL (as the OOM killer does) while it tokenizes the dataset
import os
import signal
import time
from accelerate import Accelerator

acc = Accelerator(cpu=True)
print(f"[process {acc.process_index}] tokenizing dataset", flush=True)
if acc.process_index == 1:
    time.sleep(1)
    os.kill(os.getpid(), signal.SIGKILL)
acc.wait_for_everyone()
