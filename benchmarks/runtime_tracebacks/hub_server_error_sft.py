# family: hub-access
# expect: 503|Service Unavailable
# note: SFT script loading the model by id while the Hub answers 503
import _hub
_hub.serve("server")
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM2-360M-Instruct")
