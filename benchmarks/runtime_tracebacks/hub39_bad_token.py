# family: hub-access
# set: runtime-39
# wave: 1
# expect: 401|Invalid|credentials
# note: HfApi().whoami() with a revoked token (stand-in Hub answers 401)
import _hub
_hub.serve("badtoken")
from huggingface_hub import HfApi

print(HfApi().whoami(token="hf_" + "y" * 34))
