# family: training-data
# set: runtime-40
# expect: [Cc]ouldn't cast|column names don't match|DatasetGenerationError|CastError
# note: load_dataset("csv") of two shards where the second was exported with an extra column
import os
import tempfile
from datasets import load_dataset

folder = tempfile.mkdtemp(prefix="csv40-")
open(os.path.join(folder, "a.csv"), "w").write("text,label\nhello,1\nworld,0\n")
open(os.path.join(folder, "b.csv"), "w").write("text,label,source\nthe cat,1,web\nthe dog,0,web\n")
ds = load_dataset("csv", data_files=[os.path.join(folder, "a.csv"), os.path.join(folder, "b.csv")])
