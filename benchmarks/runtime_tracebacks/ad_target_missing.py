# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# expect: not found in the base model
# note: a Falcon/BLOOM-style target module on a Llama (copied from another recipe)
import _tiny
from peft import LoraConfig, get_peft_model

model = _tiny.llama()
config = LoraConfig(r=8, lora_alpha=16, target_modules=["query_key_value", "dense"], task_type="CAUSAL_LM")
model = get_peft_model(model, config)
model.print_trainable_parameters()
