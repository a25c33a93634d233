# family: api-drift
# set: runtime-42
# expect: use_auth_token
# note: pipeline(..., use_auth_token=...) on transformers 5 (the keyword is token since 4.x)
import _tiny
from transformers import pipeline

folder = _tiny.saved_llama()
gen = pipeline("text-generation", model=folder, use_auth_token="hf_notarealtoken0000000000")
print(gen("hello", max_new_tokens=2))
