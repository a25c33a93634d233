# family: training-data
# set: runtime-42
# expect: ClassLabel|label|Invalid|cast|not in
# note: Dataset.cast_column to ClassLabel(names=['neg', 'pos']) over rows whose labels include 'neutral'
from datasets import ClassLabel, Dataset

ds = Dataset.from_dict({"text": ["a", "b", "c"], "label": ["neg", "pos", "neutral"]})
ds = ds.cast_column("label", ClassLabel(names=["neg", "pos"]))
