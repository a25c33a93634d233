# family: none
# set: runtime-44
# wave: 2
# mode: accelerate
# expect: JSONDecodeError|Expecting
# note: out of scope: accelerate launch, 2 processes: the script reads its own earlier results file (not a checkpoint, not a dataset), which another run left half-written
import json
from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
with open("/tmp/runtime44-results.json", "w") as f:
    f.write('{"rouge": 0.31, "bleu": ')
with open("/tmp/runtime44-results.json") as f:
    previous = json.load(f)
