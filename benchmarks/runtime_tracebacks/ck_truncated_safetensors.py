# family: checkpoint-io
# case: KB0047-safetensors-file-cut-off
# expect: header
# note: the model.safetensors of a copied checkpoint was cut off (an interrupted copy)
import os
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
path = os.path.join(folder, "model.safetensors")
with open(path, "r+b") as f:
    f.truncate(os.path.getsize(path) // 3)
model = AutoModelForCausalLM.from_pretrained(folder)
