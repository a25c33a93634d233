# family: api-drift
# set: runtime-41
# mode: accelerate
# expect: use_fp16|has no attribute
# note: accelerate launch, 2 processes; an old loop reads accelerator.use_fp16 (removed)
from accelerate import Accelerator

acc = Accelerator(cpu=True)
if acc.use_fp16:
    print("fp16")
