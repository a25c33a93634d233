# family: training-data
# wave: 3
# expect: Unable to find|FileNotFound|doesn't exist
# note: load_dataset("csv") with a data file path relative to another folder
from datasets import load_dataset

ds = load_dataset("csv", data_files={"train": "data/train.csv"}, split="train")
