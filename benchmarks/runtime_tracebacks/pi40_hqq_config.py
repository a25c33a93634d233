# family: package-install
# set: runtime-40
# expect: hqq|install
# note: from_pretrained(quantization_config=HqqConfig(...)) without the hqq package
import _tiny
from transformers import AutoModelForCausalLM, HqqConfig

folder = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(folder, quantization_config=HqqConfig(nbits=4, group_size=16))
