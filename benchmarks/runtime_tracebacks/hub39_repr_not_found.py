# family: hub-access
# set: runtime-39
# wave: 2
# expect: not a valid model identifier|Repository Not Found
# note: a web demo's loader that prints repr(e) of the failure and serves on (stand-in Hub answers 401 RepoNotFound)
import _hub
_hub.serve("notfound")
from transformers import AutoModelForCausalLM

try:
    model = AutoModelForCausalLM.from_pretrained("TheBloke/Llama-2-7B-Chat-fp16-typo")
except Exception as e:
    print("model load failed:", repr(e))
