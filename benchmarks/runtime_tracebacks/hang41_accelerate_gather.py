# family: hang
# set: runtime-41
# mode: accelerate
# expect: timed out|Timed out|timeout|Timeout
# note: accelerate launch, 2 processes, process-group timeout 5 s: only the main process saves a big checkpoint, the other waits in wait_for_everyone
import datetime
import time
from accelerate import Accelerator, InitProcessGroupKwargs

acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=5))])
if acc.is_main_process:
    time.sleep(20)
acc.wait_for_everyone()
