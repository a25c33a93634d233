# family: hub-access
# set: runtime-40
# mode: ipython
# expect: 429|Too Many Requests
# note: notebook; load_dataset by id while the Hub answers 429 (a shared IP over its quota)
import _hub
_hub.serve("ratelimit")
# %%
from datasets import load_dataset
ds = load_dataset("tatsu-lab/alpaca")
