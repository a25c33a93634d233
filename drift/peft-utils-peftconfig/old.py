"""PeftConfig imported from peft.utils, as SmartEdit and CoLLiE did for peft <= 0.4."""
from peft.utils import PeftConfig

print("kb-drift built", PeftConfig.__name__)
