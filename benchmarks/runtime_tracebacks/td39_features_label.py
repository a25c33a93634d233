# family: training-data
# set: runtime-39
# wave: 1
# expect: ClassLabel|Class label|out of range|invalid|not in|Invalid
# note: cast_column to ClassLabel(names=[neg, pos]) over a label column holding 'neutral'
from datasets import ClassLabel, Dataset

ds = Dataset.from_dict({"text": ["a", "b", "c"], "label": ["neg", "pos", "neutral"]})
ds = ds.cast_column("label", ClassLabel(names=["neg", "pos"]))
