# family: hub-access
# set: runtime-41
# mode: srunlabel
# expect: 503|Service Unavailable|Server|couldn't connect
# note: srun --label; snapshot_download while the Hub answers 503
import _hub
_hub.serve("server")
from huggingface_hub import snapshot_download

path = snapshot_download("mistralai/Mistral-7B-Instruct-v0.3", allow_patterns=["*.json", "*.safetensors"])
