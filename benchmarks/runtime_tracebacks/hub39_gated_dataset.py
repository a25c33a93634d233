# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-39
# wave: 1
# expect: gated|restricted
# note: load_dataset of a gated dataset without approved access (stand-in Hub answers 403 GatedRepo)
import _hub
_hub.serve("gateddataset")
from datasets import load_dataset

ds = load_dataset("bigcode/the-stack-smol", split="train")
