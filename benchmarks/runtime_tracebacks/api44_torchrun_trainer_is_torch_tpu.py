# family: api-drift
# set: runtime-44
# mode: torchrun
# expect: cannot import name|ImportError|is_torch_tpu_available
# note: torchrun, 2 gloo ranks: a training script imports is_torch_tpu_available from transformers (removed, is_torch_xla_available since)
import torch
from transformers import Trainer, is_torch_tpu_available

print(is_torch_tpu_available())
