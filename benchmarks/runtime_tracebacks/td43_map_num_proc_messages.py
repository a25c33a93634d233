# family: training-data
# set: runtime-43
# expect: TextEncodeInput|text input must be|RemoteTraceback|TypeError|ValueError
# note: datasets map with num_proc=2 tokenizing a 'messages' column (lists of role/content dicts) as if it were text
import _tiny
from datasets import Dataset

tok = _tiny.tokenizer()
rows = [[{"role": "user", "content": "hello"}, {"role": "assistant", "content": "world"}]] * 8
ds = Dataset.from_dict({"messages": rows})
ds = ds.map(lambda r: tok(r["messages"], truncation=True, max_length=16), num_proc=2)
