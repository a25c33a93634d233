"""k-bit preparation under its old name, as peft <= 0.9 recipes call it."""
from peft import prepare_model_for_int8_training

from kb.fixtures import tiny

model = prepare_model_for_int8_training(tiny.causal_lm(tiny.tokenizer()))
print("kb-drift prepared", type(model).__name__)
