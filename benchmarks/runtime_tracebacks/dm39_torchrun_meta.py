# family: device-mismatch
# set: runtime-39
# wave: 2
# mode: torchrun
# expect: meta tensor
# note: torchrun, 2 gloo ranks; a model built under init_empty_weights moved with .to() before the weights were loaded
import torch.distributed as dist
import _tiny
from accelerate import init_empty_weights
from transformers import LlamaForCausalLM

dist.init_process_group("gloo")
with init_empty_weights():
    model = LlamaForCausalLM(_tiny.llama_config())
model = model.to("cpu")
