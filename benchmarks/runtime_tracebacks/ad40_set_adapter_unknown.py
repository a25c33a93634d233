# family: adapter-config
# set: runtime-40
# expect: [Aa]dapter
# note: an evaluation script switching to an adapter name it never loaded (loaded as 'default', asked as 'math')
import _tiny
from peft import LoraConfig, get_peft_model

model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
model.set_adapter("math")
