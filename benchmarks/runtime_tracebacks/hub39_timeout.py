# family: hub-access
# set: runtime-39
# wave: 1
# expect: [Tt]imed? ?out|timeout|LocalEntryNotFound|connection
# note: from_pretrained by id while the Hub answers too slowly (a proxy that stalls), empty cache
import _hub
_hub.serve("slow")
from transformers import AutoConfig

cfg = AutoConfig.from_pretrained("Qwen/Qwen2.5-0.5B")
