# family: adapter-config
# expect: is not supported
# note: LoRA targeted at the activation function (target_modules from a regex that matched too much)
import _tiny
from peft import LoraConfig, get_peft_model

model = _tiny.llama()
model = get_peft_model(model, LoraConfig(r=4, target_modules=["act_fn"], task_type="CAUSAL_LM"))
