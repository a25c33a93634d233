"""Importing the old download helper, as diffusers < 0.26 and many demos did (nothing is downloaded)."""
from huggingface_hub import cached_download

print("kb-drift built", cached_download.__name__)
