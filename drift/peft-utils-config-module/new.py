"""The same classes from peft.config."""
from peft.config import PeftConfig
from peft.utils import PeftType

print("kb-drift built", PeftConfig.__name__, PeftType.LORA.value)
