# family: training-data
# set: runtime-43
# mode: logprefix
# expect: Unknown split|split|validation
# note: a containerised job's log: load_dataset('json', data_files=...) asked for split='validation' while only a train file was given
import json, os, tempfile
from datasets import load_dataset

d = tempfile.mkdtemp()
path = os.path.join(d, "train.jsonl")
with open(path, "w") as f:
    for _ in range(4):
        f.write(json.dumps({"text": "hello world"}) + "\n")
train = load_dataset("json", data_files={"train": path}, split="train")
val = load_dataset("json", data_files={"train": path}, split="validation")
