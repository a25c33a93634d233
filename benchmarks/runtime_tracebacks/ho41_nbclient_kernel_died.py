# family: host-oom
# set: runtime-41
# mode: nbclient
# expect: Kernel died|DeadKernel|died
# note: jupyter execute; the kernel is killed with SIGKILL (as the OOM killer does) while a cell loads the model
import _tiny
tok = _tiny.tokenizer()
# %%
import os
import signal
print("Loading checkpoint shards:  50%", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
