# family: device-mismatch
# set: runtime-43
# wave: 2
# mode: accelerate
# expect: offloaded|move|meta
# note: accelerate launch, 2 processes: each rank dispatches a Llama with accelerate's disk_offload, then moves it with .to(accelerator.device)
import tempfile
import _tiny
from accelerate import Accelerator, disk_offload

accelerator = Accelerator(cpu=True)
model = disk_offload(_tiny.llama(), offload_dir=tempfile.mkdtemp())
model = model.to(accelerator.device)
