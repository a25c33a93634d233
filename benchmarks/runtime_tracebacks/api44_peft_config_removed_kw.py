# family: api-drift
# set: runtime-44
# mode: torchrun
# expect: unexpected keyword argument|enable_lora
# note: torchrun, 2 gloo ranks: a LoraConfig written for peft 0.2 passes enable_lora= (the old MergedLinear option)
import _tiny
from peft import LoraConfig, get_peft_model

model = _tiny.llama()
config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], enable_lora=[True, False, True],
                    task_type="CAUSAL_LM")
model = get_peft_model(model, config)
