# family: checkpoint-io
# set: runtime-39
# wave: 1
# expect: Missing key|Unexpected key
# note: load_state_dict(strict) of a LoRA adapter's weights file into the base model
import tempfile
import _tiny
from peft import LoraConfig, get_peft_model
from safetensors.torch import load_file

folder = tempfile.mkdtemp()
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"])).save_pretrained(folder)
base = _tiny.llama()
base.load_state_dict(load_file(f"{folder}/adapter_model.safetensors"))
