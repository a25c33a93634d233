"""The same check under its new name."""
from transformers import is_torch_xla_available

print("kb-drift xla", is_torch_xla_available())
