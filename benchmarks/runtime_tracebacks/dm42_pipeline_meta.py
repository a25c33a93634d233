# family: device-mismatch
# set: runtime-42
# expect: meta
# note: a text-generation pipeline over a model built under accelerate's init_empty_weights (weights never loaded)
import _tiny
from accelerate import init_empty_weights
from transformers import AutoModelForCausalLM, pipeline

with init_empty_weights():
    model = AutoModelForCausalLM.from_config(_tiny.llama_config())
gen = pipeline("text-generation", model=model, tokenizer=_tiny.tokenizer())
print(gen("the cat", max_new_tokens=3))
