# family: hub-access
# set: runtime-44
# mode: logprefix
# expect: token|Token|login|LocalTokenNotFound
# note: container log: a training job builds its push repo id from HfApi().whoami(), with no token in the container
import os
os.environ["HF_HUB_OFFLINE"] = "0"
os.environ.pop("HF_TOKEN", None)
os.environ["HF_HOME"] = "/tmp/runtime44/empty-hf-home"
from huggingface_hub import HfApi

user = HfApi().whoami()["name"]
repo_id = f"{user}/llama-sft"
