# family: hub-access
# set: runtime-41
# mode: nbclient
# expect: not found|doesn't exist|Not Found|cannot be found
# note: a notebook: load_dataset of a private dataset id without a token (stand-in Hub answers 401 RepoNotFound)
import _hub
_hub.serve("notfound")
# %%
from datasets import load_dataset
ds = load_dataset("someuser/support-tickets-v2", split="train")
