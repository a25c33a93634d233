# family: checkpoint-io
# set: runtime-42
# expect: config\.json
# note: from_pretrained on a folder that holds only model.safetensors (the config was not saved with it)
import os
import tempfile
import _tiny
from transformers import AutoModelForCausalLM

folder = tempfile.mkdtemp()
_tiny.llama().save_pretrained(folder)
os.remove(os.path.join(folder, "config.json"))
model = AutoModelForCausalLM.from_pretrained(folder)
