# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-39
# wave: 1
# expect: not found in the base model
# note: notebook-style script without IPython that catches and prints the error: print(f"Error: {e}")
import _tiny
from peft import LoraConfig, get_peft_model

try:
    model = get_peft_model(_tiny.llama(), LoraConfig(r=8, target_modules=["Wqkv"], task_type="CAUSAL_LM"))
except Exception as e:
    print(f"Error: {e}")
