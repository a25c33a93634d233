# family: device-mismatch
# set: runtime-41
# mode: srunlabel
# expect: meta
# note: srun --label; generate() on a model whose weights stayed on the meta device (from_config under init_empty_weights)
import torch
import _tiny
from accelerate import init_empty_weights
from transformers import AutoModelForCausalLM

with init_empty_weights():
    model = AutoModelForCausalLM.from_config(_tiny.llama_config())
out = model.generate(torch.tensor([[1, 5, 6]]), max_new_tokens=3)
