"""The same helper from transformers.integrations."""
from transformers.integrations.deepspeed import is_deepspeed_zero3_enabled

print("kb-drift built", is_deepspeed_zero3_enabled())
