# family: training-data
# set: runtime-41
# expect: NoneType|None|RemoteTraceback
# note: datasets map with num_proc=2 over rows where some "response" fields are None (the worker's traceback chained)
import _tiny
from datasets import Dataset

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"prompt": ["hello"] * 8, "response": ["world", None] * 4})
ds = ds.map(lambda r: tok(r["prompt"] + " " + r["response"]), num_proc=2)
