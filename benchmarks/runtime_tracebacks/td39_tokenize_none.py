# family: training-data
# set: runtime-39
# wave: 1
# expect: TextEncodeInput|TypeError|str
# note: a map that tokenizes a column holding None in some rows (empty answers in the source file)
import _tiny
from datasets import Dataset

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"text": ["the cat sat", None, "hello world", None]})
ds = ds.map(lambda b: tok(b["text"]), batched=True)
