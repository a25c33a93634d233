"""get_token(), its replacement."""
import os

os.environ.pop("HF_TOKEN", None)
from huggingface_hub import get_token

print("kb-drift built", get_token() is None or "token")
