"""Remote model code (modeling_phi3.py and others) written for transformers <= 4.48: cache.get_max_length()."""
from transformers import DynamicCache

cache = DynamicCache()
print("kb-drift built", cache.get_max_length())
