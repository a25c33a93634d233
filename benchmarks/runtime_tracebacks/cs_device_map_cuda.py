# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# expect: CUDA|cuda
# note: from_pretrained(device_map="cuda:0") with a CPU-only torch
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(folder, device_map="cuda:0")
