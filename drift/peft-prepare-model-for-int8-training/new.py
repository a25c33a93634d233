"""The same preparation under its current name."""
from peft import prepare_model_for_kbit_training

from kb.fixtures import tiny

model = prepare_model_for_kbit_training(tiny.causal_lm(tiny.tokenizer()))
print("kb-drift prepared", type(model).__name__)
