"""KB0052 peft-int8-training-helper-removed: the failing program.

The opening of an alpaca-lora / llama-recipes style LoRA fine-tuning script written for peft <= 0.9: it
imports prepare_model_for_int8_training, the helper peft deprecated for prepare_model_for_kbit_training
(0.4.0) and removed in 0.10.0. On the installed peft the import itself fails: peft/__init__.py no longer
exports the name. Tiny Llama from a config with random weights: nothing is downloaded.
"""

import peft
import torch
from peft import LoraConfig, get_peft_model, prepare_model_for_int8_training

from kb.fixtures import tiny

print(f"peft {peft.__version__}")
tokenizer = tiny.tokenizer()
model = tiny.causal_lm(tokenizer)
model = prepare_model_for_int8_training(model)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
batch = tokenizer(tiny.texts(4), return_tensors="pt", padding=True)
loss = model(**batch, labels=batch["input_ids"]).loss
loss.backward()
print(f"kb-measure loss_finite={int(torch.isfinite(loss).item())}")
