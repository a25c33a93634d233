# family: adapter-config
# case: KB0030-lora-adapter-on-base-of-other-size
# set: runtime-42
# expect: size mismatch
# note: transformers' model.load_adapter (not PeftModel) of a LoRA saved on a Llama of hidden size 16 into one of 32
import tempfile
import _tiny
from peft import LoraConfig, get_peft_model

folder = tempfile.mkdtemp()
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"])).save_pretrained(folder)
wide = _tiny.llama(hidden_size=32, intermediate_size=64)
wide.load_adapter(folder, adapter_name="chat")
