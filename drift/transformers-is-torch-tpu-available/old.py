"""A TPU check imported from transformers under its old name."""
from transformers import is_torch_tpu_available

print("kb-drift tpu", is_torch_tpu_available())
