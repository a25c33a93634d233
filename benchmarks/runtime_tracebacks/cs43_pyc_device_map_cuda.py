# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-43
# mode: pyc
# expect: CUDA|cuda|compiled
# note: python -c: from_pretrained(device_map='cuda:0') of a saved tiny Llama on a machine whose torch is the CPU build
import _tiny
from transformers import AutoModelForCausalLM
path = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(path, device_map="cuda:0")
