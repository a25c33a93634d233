# family: adapter-config
# set: runtime-40
# mode: ipython
# expect: size mismatch
# note: notebook; an adapter trained on a 32-wide Llama loaded onto the 16-wide one of the next cell
import tempfile
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model
folder = tempfile.mkdtemp(prefix="adapter-")
get_peft_model(_tiny.llama(hidden_size=32, intermediate_size=64), LoraConfig(r=4, target_modules=["q_proj", "v_proj"])).save_pretrained(folder)
# %%
base = _tiny.llama()
# %%
model = PeftModel.from_pretrained(base, folder)
