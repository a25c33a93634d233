# family: adapter-config
# set: runtime-44
# wave: 2
# mode: torchrun
# expect: layers_pattern|layers_to_transform
# note: torchrun, 2 gloo ranks: a LoraConfig naming layers_pattern without the layer indices it selects from
import _tiny
from peft import LoraConfig, get_peft_model

config = LoraConfig(r=8, target_modules=["q_proj", "v_proj"], layers_pattern="layers")
model = get_peft_model(_tiny.llama(), config)
