# family: hub-access
# set: runtime-40
# mode: logprefix
# expect: Entry Not Found|EntryNotFound|404
# note: a containerised job's log; hf_hub_download of adapter_config.json from a repo that holds a full model
import _hub
_hub.serve("entry")
from huggingface_hub import hf_hub_download

path = hf_hub_download("someuser/merged-model", "adapter_config.json")
