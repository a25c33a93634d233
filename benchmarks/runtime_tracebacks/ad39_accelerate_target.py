# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-39
# wave: 1
# mode: accelerate
# expect: not found in the base model
# note: accelerate launch on 2 CPU processes; BLOOM's dense_h_to_4h targeted on a Llama
import _tiny
from accelerate import Accelerator
from peft import LoraConfig, get_peft_model

acc = Accelerator(cpu=True)
model = get_peft_model(_tiny.llama(), LoraConfig(r=8, target_modules=["dense_h_to_4h"], task_type="CAUSAL_LM"))
