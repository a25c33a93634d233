"""The same question asked the way transformers >= 4.48 names it: get_max_cache_shape()."""
from transformers import DynamicCache

cache = DynamicCache()
print("kb-drift built", cache.get_max_cache_shape())
