# family: adapter-config
# set: runtime-44
# mode: accelerate
# expect: same r value|combination_type|rank
# note: accelerate launch, 2 processes: two LoRA adapters of ranks 8 and 16 merged with add_weighted_adapter(combination_type='linear')
import _tiny
from accelerate import Accelerator
from peft import LoraConfig, get_peft_model

accelerator = Accelerator(cpu=True)
model = get_peft_model(_tiny.llama(), LoraConfig(r=8, target_modules=["q_proj", "v_proj"]), adapter_name="math")
model.add_adapter("code", LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
model.add_weighted_adapter(["math", "code"], [0.5, 0.5], adapter_name="merged", combination_type="linear")
model.set_adapter("merged")
