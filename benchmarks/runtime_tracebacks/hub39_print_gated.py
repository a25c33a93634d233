# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-39
# wave: 1
# expect: restricted|gated
# note: notebook-style script without IPython: a download helper prints the exception instead of raising it
import _hub
_hub.serve("gated")
from huggingface_hub import hf_hub_download

try:
    path = hf_hub_download("meta-llama/Llama-3.2-1B-Instruct", "config.json")
except Exception as e:
    print(e)
