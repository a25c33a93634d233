# family: hub-access
# case: KB0018-gated-model-access-denied
# expect: gated
# note: from_pretrained of a gated repo without approved access (local stand-in Hub answers 403 GatedRepo)
import _hub
_hub.serve("gated")
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
