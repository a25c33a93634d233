# family: hang
# set: runtime-40
# mode: accelerate
# expect: [Tt]imed? ?out|timeout
# note: accelerate launch, 2 CPU processes, a 5 s process-group timeout; only the main process runs evaluation's gather
import time
from datetime import timedelta
import torch
from accelerate import Accelerator, InitProcessGroupKwargs

acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=timedelta(seconds=5))])
if acc.is_main_process:
    metrics = acc.gather(torch.tensor([1.0]))
else:
    time.sleep(20)
