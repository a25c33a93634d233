# family: hang
# set: runtime-44
# mode: accelerate
# expect: Timed out|timeout|timed out|Timeout
# note: accelerate launch, 2 processes, a 5 s process-group timeout: the main process waits for everyone while the other rank is still evaluating
import datetime
import time
from accelerate import Accelerator, InitProcessGroupKwargs

accelerator = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=5))])
if not accelerator.is_main_process:
    time.sleep(20)  # a long evaluation on this rank's shard
accelerator.wait_for_everyone()
accelerator.print("saved")
