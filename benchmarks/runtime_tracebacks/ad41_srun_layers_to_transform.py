# family: adapter-config
# set: runtime-41
# mode: srunlabel
# expect: Target modules|not found|layers
# note: srun --label output; LoRA limited to layers_to_transform=[10, 11] (copied from a 12-layer recipe) on a 2-layer model
import _tiny
from peft import LoraConfig, get_peft_model

model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"], layers_to_transform=[10, 11]))
model.print_trainable_parameters()
