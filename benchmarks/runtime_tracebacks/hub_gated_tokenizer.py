# family: hub-access
# case: KB0018-gated-model-access-denied
# expect: gated
# note: AutoTokenizer of a gated repo, not logged in (stand-in Hub answers 401 GatedRepo)
import _hub
_hub.serve("gated401")
from transformers import AutoTokenizer

tok = AutoTokenizer.from_pretrained("mistralai/Mistral-7B-Instruct-v0.3")
