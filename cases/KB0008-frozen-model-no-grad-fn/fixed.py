"""Attempt 10 of the incident: prepare_model_for_kbit_training restored before get_peft_model.

The model is loaded in 4-bit, wrapped with LoRA and trained with gradient checkpointing in its
reentrant form (what transformers 4.x used by default). Small dimensions of the Qwen2 architecture:
the case is about autograd, not memory.
"""

import torch
from peft import get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM

from kb.fixtures.qwen import checkpoint, four_bit_config, lora_config, token_batch

path = checkpoint("small", layers=4)
model = AutoModelForCausalLM.from_pretrained(path, quantization_config=four_bit_config(), device_map={"": 0})
model = prepare_model_for_kbit_training(model)
model = get_peft_model(model, lora_config())
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
model.print_trainable_parameters()

model.train()
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
for step in range(3):
    loss = model(**token_batch(1, 256, device=0, seed=step)).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"step {step}: loss {loss.item():.4f}")
print(f"kb-measure steps_completed={step + 1}")
