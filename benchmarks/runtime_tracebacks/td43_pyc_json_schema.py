# family: training-data
# set: runtime-43
# mode: pyc
# expect: ArrowInvalid|cast|DatasetGenerationError|JSON|Couldn't cast
# note: python -c: load_dataset('json') of two shards whose 'answer' field is a string in one and a list of strings in the other
import json, os, tempfile
from datasets import load_dataset
d = tempfile.mkdtemp()
with open(os.path.join(d, "a.jsonl"), "w") as f:
    for i in range(4):
        f.write(json.dumps({"question": "q", "answer": "a"}) + "\n")
with open(os.path.join(d, "b.jsonl"), "w") as f:
    for i in range(4):
        f.write(json.dumps({"question": "q", "answer": ["a", "b"]}) + "\n")
ds = load_dataset("json", data_files=[os.path.join(d, "a.jsonl"), os.path.join(d, "b.jsonl")], split="train")
print(ds)
