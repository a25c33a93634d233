# family: training-data
# set: runtime-43
# wave: 2
# mode: pyc
# expect: Unknown split|split
# note: python -c: load_dataset('json', data_files=...) asked for split='train+validation' (a recipe's combined split) with one file
import json, os, tempfile
from datasets import load_dataset
d = tempfile.mkdtemp()
p = os.path.join(d, "data.jsonl")
open(p, "w").write("\n".join(json.dumps({"text": "hello world"}) for _ in range(4)) + "\n")
ds = load_dataset("json", data_files=p, split="train+validation")
