"""Metrics from datasets, as datasets 2.x scripts import them."""
from datasets import load_metric

print("kb-drift callable", callable(load_metric))
