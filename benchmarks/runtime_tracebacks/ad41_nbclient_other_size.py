# family: adapter-config
# case: KB0030-lora-adapter-on-base-of-other-size
# set: runtime-41
# mode: nbclient
# expect: size mismatch
# note: a notebook run by jupyter execute: a LoRA adapter trained on a 32-wide model loaded onto a 16-wide base of the same family
import tempfile
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model

folder = tempfile.mkdtemp()
get_peft_model(_tiny.llama(hidden_size=32, intermediate_size=64), LoraConfig(r=4, target_modules=["q_proj", "v_proj"])).save_pretrained(folder)
# %%
base = _tiny.llama()
model = PeftModel.from_pretrained(base, folder)
