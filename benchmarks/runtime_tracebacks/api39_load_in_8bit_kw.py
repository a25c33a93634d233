# family: api-drift
# set: runtime-39
# wave: 1
# expect: load_in_8bit|unexpected keyword|quantization_config
# note: from_pretrained(load_in_8bit=True) from a 2023 recipe under transformers 5
import _tiny
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained(_tiny.saved_llama(), load_in_8bit=True)
