"""PeftConfig from the package itself."""
from peft import PeftConfig

print("kb-drift built", PeftConfig.__name__)
