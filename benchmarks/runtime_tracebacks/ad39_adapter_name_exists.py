# family: adapter-config
# set: runtime-39
# wave: 1
# expect: already|exists|adapter
# note: load_adapter twice under one adapter name in an evaluation loop
import tempfile
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model

folder = tempfile.mkdtemp()
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"])).save_pretrained(folder)
model = PeftModel.from_pretrained(_tiny.llama(), folder, adapter_name="eval")
model.load_adapter(folder, adapter_name="eval")
