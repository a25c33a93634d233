# family: model-unsupported
# expect: config.json
# note: from_pretrained on a folder that holds only an adapter (no config.json)
import os
import tempfile
import _tiny
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

folder = tempfile.mkdtemp()
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"])).save_pretrained(folder)
os.remove(os.path.join(folder, "adapter_config.json"))
model = AutoModelForCausalLM.from_pretrained(folder)
