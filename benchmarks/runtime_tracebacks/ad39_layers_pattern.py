# family: adapter-config
# set: runtime-39
# wave: 1
# expect: not found|layers_to_transform|layers_pattern
# note: LoraConfig(layers_to_transform=[...]) with a layers_pattern the model's module names do not have
import _tiny
from peft import LoraConfig, get_peft_model

cfg = LoraConfig(r=4, target_modules=["q_proj"], layers_to_transform=[0], layers_pattern="blocks")
model = get_peft_model(_tiny.llama(), cfg)
