# family: package-install
# set: runtime-43
# mode: pyc
# expect: quanto|install
# note: python -c: from_pretrained(quantization_config=QuantoConfig(weights='int8')) without optimum-quanto installed
import _tiny
from transformers import AutoModelForCausalLM, QuantoConfig
model = AutoModelForCausalLM.from_pretrained(_tiny.saved_llama(), quantization_config=QuantoConfig(weights="int8"))
