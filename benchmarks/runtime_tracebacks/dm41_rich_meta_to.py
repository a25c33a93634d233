# family: device-mismatch
# set: runtime-41
# expect: meta
# note: rich traceback; a model built under torch.device("meta") to save memory, then moved with .to("cpu")
from rich.traceback import install

install(width=110)
import torch
import _tiny

with torch.device("meta"):
    model = _tiny.llama()
model = model.to("cpu")
