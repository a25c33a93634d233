# family: hub-access
# wave: 3
# expect: 429|Too Many Requests
# note: many jobs downloading at once: the Hub answers 429
import _hub
_hub.serve("ratelimit")
from huggingface_hub import hf_hub_download

hf_hub_download("Qwen/Qwen2.5-0.5B", "config.json")
