"""hf_hub_download, the replacement (nothing is downloaded)."""
from huggingface_hub import hf_hub_download

print("kb-drift built", hf_hub_download.__name__)
