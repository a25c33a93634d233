# family: hub-access
# wave: 2
# expect: doesn't exist|not found|NotFound
# note: load_dataset of a dataset id the Hub does not have (stand-in answers RepoNotFound)
import _hub
_hub.serve("notfound")
from datasets import load_dataset

ds = load_dataset("timdettmers/openassistant-guanac0", split="train")
