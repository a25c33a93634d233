# family: hang
# set: runtime-43
# mode: accelerate
# expect: Timed out|timeout|timed out
# note: accelerate launch, 2 processes, a 5 s process-group timeout: only the main process gathers its metrics (gather under is_main_process)
import datetime
import time
import torch
from accelerate import Accelerator, InitProcessGroupKwargs

accelerator = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=5))])
metric = torch.tensor([accelerator.process_index + 0.5])
if accelerator.is_main_process:
    everything = accelerator.gather(metric)
    print(everything)
else:
    time.sleep(25)
