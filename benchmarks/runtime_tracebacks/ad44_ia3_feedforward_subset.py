# family: adapter-config
# set: runtime-44
# expect: feedforward_modules|subset|target_modules
# note: an IA3 config whose feedforward_modules name a layer not in target_modules
import _tiny
from peft import IA3Config, get_peft_model

config = IA3Config(task_type="CAUSAL_LM", target_modules=["k_proj", "v_proj"], feedforward_modules=["down_proj"])
model = get_peft_model(_tiny.llama(), config)
