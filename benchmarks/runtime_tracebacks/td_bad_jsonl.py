# family: training-data
# case: KB0044-json-lines-file-does-not-parse
# expect: json
# note: load_dataset("json") on a .jsonl file with one line cut in the middle
import tempfile
from datasets import load_dataset

path = tempfile.mktemp(suffix=".jsonl")
with open(path, "w") as f:
    for i in range(50):
        f.write('{"instruction": "say hello", "output": "hello world"}\n')
    f.write('{"instruction": "say hello", "output": "hel\n')
    f.write('{"instruction": "say hi", "output": "hi"}\n')
ds = load_dataset("json", data_files=path, split="train")
