# family: training-data
# set: runtime-39
# wave: 1
# expect: At least one valid data file|Unable to find
# note: load_dataset("parquet") with a glob pattern that matches nothing (files written as .parq)
from datasets import load_dataset

ds = load_dataset("parquet", data_files={"train": "/tmp/runtime39-shards/train-*.parquet"})
