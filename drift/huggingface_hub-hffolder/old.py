"""The token read through HfFolder, as gradio's oauth.py did for huggingface_hub < 1.0."""
import os

os.environ.pop("HF_TOKEN", None)
from huggingface_hub import HfFolder

print("kb-drift built", HfFolder.get_token() is None or "token")
