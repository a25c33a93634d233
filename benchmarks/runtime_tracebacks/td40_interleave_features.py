# family: training-data
# set: runtime-40
# wave: 2
# expect: features|align|cast
# note: interleave_datasets of two sources whose 'score' columns have different types (int in one, string in the other)
from datasets import Dataset, interleave_datasets

a = Dataset.from_dict({"text": ["hello", "world"], "score": [1, 2]})
b = Dataset.from_dict({"text": ["the cat", "the dog"], "score": ["high", "low"]})
mixed = interleave_datasets([a, b], probabilities=[0.5, 0.5], seed=0)
