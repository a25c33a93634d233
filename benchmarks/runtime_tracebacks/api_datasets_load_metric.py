# family: api-drift
# wave: 3
# expect: load_metric
# note: an evaluation script importing load_metric from datasets (moved to evaluate)
from datasets import load_dataset, load_metric  # noqa: F401
