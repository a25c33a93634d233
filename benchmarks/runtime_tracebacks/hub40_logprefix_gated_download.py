# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-40
# wave: 2
# mode: logprefix
# expect: gated|restricted
# note: a containerised job's log; hf_hub_download of a gated repo's tokenizer.json without approved access (stand-in Hub answers 403 GatedRepo)
import _hub
_hub.serve("gated")
from huggingface_hub import hf_hub_download

path = hf_hub_download("google/gemma-3-1b-it", "tokenizer.json")
