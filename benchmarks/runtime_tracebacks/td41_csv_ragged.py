# family: training-data
# set: runtime-41
# mode: srunlabel
# expect: Error tokenizing|Expected|fields
# note: srun --label; load_dataset("csv") on a file where one row has an unquoted comma in its text
import tempfile
from datasets import load_dataset

path = tempfile.mktemp(suffix=".csv")
with open(path, "w") as f:
    f.write("text,label\n")
    f.write("the cat sat,1\nhello world,0\n")
    f.write("a dog, a cat and a mat,1\n")
ds = load_dataset("csv", data_files=path, split="train")
