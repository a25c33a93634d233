# family: device-mismatch
# set: runtime-44
# mode: torchrun
# expect: meta|device
# note: torchrun, 2 gloo ranks: each rank builds the model under init_empty_weights and fills it with load_state_dict(assign=True); the rotary buffers, not in the state dict, stay on meta
import torch
import torch.distributed as dist
import _tiny
from accelerate import init_empty_weights
from transformers import AutoModelForCausalLM

dist.init_process_group("gloo")
state = _tiny.llama().state_dict()
with init_empty_weights(include_buffers=True):
    model = AutoModelForCausalLM.from_config(_tiny.llama_config())
model.load_state_dict(state, assign=True, strict=False)
out = model(input_ids=torch.tensor([[1, 5, 6, 2]]))
