# family: adapter-config
# set: runtime-43
# mode: pyc
# expect: adapter_config|Can't find|config
# note: python -c: AutoPeftModelForCausalLM.from_pretrained on a folder that holds the merged full model (no adapter_config.json)
import _tiny
from peft import AutoPeftModelForCausalLM
model = AutoPeftModelForCausalLM.from_pretrained(_tiny.saved_llama())
