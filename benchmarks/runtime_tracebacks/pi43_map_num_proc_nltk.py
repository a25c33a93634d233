# family: package-install
# set: runtime-43
# expect: No module named|nltk|RemoteTraceback
# note: datasets map with num_proc=2 whose function imports nltk for sentence splitting, nltk not installed (the worker's error chained)
from datasets import Dataset

ds = Dataset.from_dict({"text": ["The cat sat. The dog ran."] * 8})


def split(row):
    import nltk

    return {"sentences": nltk.sent_tokenize(row["text"])}


ds = ds.map(split, num_proc=2)
