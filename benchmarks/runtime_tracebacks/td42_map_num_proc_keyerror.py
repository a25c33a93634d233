# family: training-data
# set: runtime-42
# expect: KeyError|RemoteTraceback
# note: datasets map with num_proc=2 reading a column ('instruction') the rows do not have
import _tiny
from datasets import Dataset

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"prompt": ["hello"] * 8, "response": ["world"] * 8})
ds = ds.map(lambda r: tok(r["instruction"] + " " + r["response"]), num_proc=2)
