# family: checkpoint-io
# expect: model.safetensors
# note: from_pretrained on a folder whose weights were never written (save interrupted after config.json)
import os
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
os.remove(os.path.join(folder, "model.safetensors"))
model = AutoModelForCausalLM.from_pretrained(folder)
