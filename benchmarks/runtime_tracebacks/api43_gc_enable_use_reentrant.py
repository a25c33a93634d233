# family: api-drift
# set: runtime-43
# expect: use_reentrant|unexpected keyword
# note: model.gradient_checkpointing_enable(use_reentrant=False) as a blog post spelled it (the method takes gradient_checkpointing_kwargs)
import _tiny
from peft import LoraConfig, get_peft_model

model = _tiny.llama()
model.gradient_checkpointing_enable(use_reentrant=False)
model = get_peft_model(model, LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
