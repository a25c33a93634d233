# family: hub-access
# set: runtime-43
# wave: 2
# mode: pyc
# expect: gated|restricted|403
# note: python -c: load_dataset of a gated dataset repo while the Hub refuses the request
import _hub
_hub.serve("gateddataset")
from datasets import load_dataset
ds = load_dataset("meta-llama/Llama-3.1-8B-evals", split="train")
