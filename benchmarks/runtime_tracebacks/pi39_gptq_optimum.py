# family: package-install
# set: runtime-39
# wave: 1
# expect: optimum|gptqmodel|auto-gptq|auto_gptq|GPTQ
# note: GPTQConfig quantization of a tiny model without optimum/gptqmodel installed
import _tiny
from transformers import AutoModelForCausalLM, GPTQConfig

folder = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(folder, quantization_config=GPTQConfig(bits=4, dataset="c4", tokenizer=_tiny.tokenizer()))
