# family: checkpoint-io
# set: runtime-41
# wave: 2
# mode: ipython
# expect: Error|error
# note: IPython: PeftModel.from_pretrained on an adapter whose adapter_model.safetensors was cut off by a full disk while saving
import os
import tempfile
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model
folder = tempfile.mkdtemp()
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"])).save_pretrained(folder)
path = os.path.join(folder, "adapter_model.safetensors")
with open(path, "r+b") as f:
    f.truncate(os.path.getsize(path) - 1000)
# %%
model = PeftModel.from_pretrained(_tiny.llama(), folder)
