# family: training-data
# set: runtime-41
# mode: nbclient
# expect: not in the dataset|column
# note: a notebook: rename_column of a column the dataset does not have (the card said "output", the file has "response")
from datasets import Dataset
ds = Dataset.from_dict({"instruction": ["say hi"] * 4, "response": ["hi"] * 4})
# %%
ds = ds.rename_column("output", "completion")
