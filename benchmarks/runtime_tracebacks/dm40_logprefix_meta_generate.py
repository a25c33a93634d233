# family: device-mismatch
# set: runtime-40
# mode: logprefix
# expect: meta
# note: a containerised inference job's log; generate() on a model built under init_empty_weights (loading step skipped by a flag)
import torch
import _tiny
from accelerate import init_empty_weights
from transformers import LlamaForCausalLM

with init_empty_weights():
    model = LlamaForCausalLM(_tiny.llama_config())
model.generate(torch.tensor([[5, 6, 7]]), max_new_tokens=3)
