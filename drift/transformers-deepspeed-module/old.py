"""The ZeRO-3 check imported from the old module, as LMFlow and DB-GPT-Hub did."""
from transformers.deepspeed import is_deepspeed_zero3_enabled

print("kb-drift built", is_deepspeed_zero3_enabled())
