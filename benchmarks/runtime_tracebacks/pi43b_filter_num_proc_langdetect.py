# family: package-install
# set: runtime-43
# wave: 2
# expect: No module named|langdetect|RemoteTraceback
# note: datasets filter with num_proc=2 keeping English rows with langdetect, not installed (the worker's error chained)
from datasets import Dataset

ds = Dataset.from_dict({"text": ["the cat sat", "le chat"] * 4})


def english(row):
    from langdetect import detect

    return detect(row["text"]) == "en"


ds = ds.filter(english, num_proc=2)
