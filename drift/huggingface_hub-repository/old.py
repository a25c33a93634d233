"""The git-based helper, as training scripts that push with git did (nothing is cloned)."""
from huggingface_hub import Repository

print("kb-drift built", Repository.__name__)
