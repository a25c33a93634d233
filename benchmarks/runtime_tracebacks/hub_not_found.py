# family: hub-access
# expect: not a valid model identifier|Repository Not Found|not found
# note: a misspelt repo id (stand-in Hub answers 401 RepoNotFound, as huggingface.co does)
import _hub
_hub.serve("notfound")
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instrcut")
