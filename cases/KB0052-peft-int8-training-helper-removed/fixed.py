"""KB0052 peft-int8-training-helper-removed: the fixed program.

The same script with the helper's replacement, prepare_model_for_kbit_training (in peft since 0.4.0, the
name the deprecation warning of 0.4-0.9 pointed to): it freezes the base weights, upcasts 16-bit
non-quantized parameters to float32, makes the input embeddings' output require grad and turns on gradient
checkpointing, as the old helper did. Then LoRA trains: a finite loss, gradients on the adapter only.
"""

import peft
import torch
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

from kb.fixtures import tiny

print(f"peft {peft.__version__}")
tokenizer = tiny.tokenizer()
model = tiny.causal_lm(tokenizer)
model = prepare_model_for_kbit_training(model)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
batch = tokenizer(tiny.texts(4), return_tensors="pt", padding=True)
loss = model(**batch, labels=batch["input_ids"]).loss
loss.backward()
print(f"kb-measure loss_finite={int(torch.isfinite(loss).item())}")
with_grad = [n for n, p in model.named_parameters() if p.grad is not None]
print(f"kb-measure grads_outside_lora={sum('lora_' not in n for n in with_grad)}")
print(f"kb-measure lora_grads={sum('lora_' in n for n in with_grad)}")
