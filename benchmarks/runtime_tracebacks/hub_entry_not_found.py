# family: hub-access
# expect: EntryNotFound|Entry Not Found|not found
# note: hf_hub_download of a file the repo does not have
import _hub
_hub.serve("entry")
from huggingface_hub import hf_hub_download

path = hf_hub_download("TinyLlama/TinyLlama-1.1B-Chat-v1.0", "adapter_model.safetensors")
