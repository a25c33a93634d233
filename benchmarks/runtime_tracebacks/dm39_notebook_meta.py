# family: device-mismatch
# set: runtime-39
# wave: 1
# mode: ipython
# expect: meta
# note: notebook; the model built empty in one cell (init_empty_weights), generate in the next
import _tiny
import torch
from accelerate import init_empty_weights
from transformers import LlamaForCausalLM
# %%
with init_empty_weights():
    model = LlamaForCausalLM(_tiny.llama_config())
# %%
out = model.generate(torch.tensor([[5, 6, 7]]), max_new_tokens=3)
