# family: training-data
# set: runtime-40
# expect: features|aligned|align
# note: concatenate_datasets of two instruction sets whose 'label' columns have different types
from datasets import Dataset, concatenate_datasets

a = Dataset.from_dict({"text": ["hello"], "label": [1]})
b = Dataset.from_dict({"text": ["world"], "label": ["positive"]})
ds = concatenate_datasets([a, b])
