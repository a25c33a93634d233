# family: training-data
# set: runtime-44
# mode: pyc
# expect: Parquet|magic|ArrowInvalid|parquet
# note: python -c: load_dataset('parquet') of a file that a download saved as an HTML error page
import os, tempfile
from datasets import load_dataset
d = tempfile.mkdtemp()
open(os.path.join(d, "train.parquet"), "w").write("<html><body>Access denied</body></html>\n")
ds = load_dataset("parquet", data_files=os.path.join(d, "train.parquet"), split="train")
