# family: device-mismatch
# set: runtime-39
# wave: 1
# expect: meta tensor
# note: a model built under init_empty_weights (accelerate) moved with .to() before any weights were loaded
import _tiny
from accelerate import init_empty_weights
from transformers import LlamaForCausalLM

with init_empty_weights():
    model = LlamaForCausalLM(_tiny.llama_config())
model = model.to("cpu")
