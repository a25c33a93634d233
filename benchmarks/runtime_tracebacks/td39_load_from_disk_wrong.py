# family: training-data
# set: runtime-39
# wave: 2
# expect: neither a|Dataset directory|DatasetDict
# note: load_from_disk on the folder of the raw JSON files, not a folder written by save_to_disk
import json
import os
import tempfile
from datasets import load_from_disk

folder = tempfile.mkdtemp()
with open(os.path.join(folder, "train.json"), "w") as f:
    json.dump([{"text": "hello"}], f)
ds = load_from_disk(folder)
