"""The HTTP upload API that replaces it (nothing is uploaded)."""
from huggingface_hub import HfApi

print("kb-drift built", HfApi.upload_folder.__name__)
