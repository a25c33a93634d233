# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# mode: ipython
# wave: 2
# expect: not found in the base model
# note: notebook; GPT-2's c_attn targeted on a Llama
import _tiny
from peft import LoraConfig, get_peft_model
model = _tiny.llama()
# %%
lora_config = LoraConfig(r=16, lora_alpha=32, target_modules=["c_attn"], lora_dropout=0.05, task_type="CAUSAL_LM")
# %%
model = get_peft_model(model, lora_config)
