# family: training-data
# set: runtime-39
# wave: 1
# expect: FileNotFoundError|Unable to find|doesn't contain|empty
# note: load_dataset on a local data folder the preprocessing step never filled
import os
import tempfile
from datasets import load_dataset

folder = os.path.join(tempfile.mkdtemp(), "data")
os.makedirs(folder)
ds = load_dataset(folder, split="train")
