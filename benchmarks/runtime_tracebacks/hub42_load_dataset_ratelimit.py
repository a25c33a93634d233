# family: hub-access
# set: runtime-42
# expect: 429|Too Many Requests|rate
# note: load_dataset of a Hub dataset while the Hub answers 429 Too Many Requests
import _hub
_hub.serve("ratelimit")
import os
os.environ["HF_HUB_OFFLINE"] = "0"
os.environ["HF_DATASETS_OFFLINE"] = "0"
from datasets import load_dataset

ds = load_dataset("tatsu-lab/alpaca", split="train")
