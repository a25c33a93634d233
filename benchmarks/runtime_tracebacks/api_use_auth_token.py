# family: api-drift
# expect: use_auth_token
# note: from_pretrained(..., use_auth_token=...) on a local folder
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(folder, use_auth_token="hf_xxx")
print(type(model))
