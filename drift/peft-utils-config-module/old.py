"""The config classes imported from the old module path (peft <= 0.5)."""
from peft.utils.config import PeftConfig, PeftType

print("kb-drift built", PeftConfig.__name__, PeftType.LORA.value)
