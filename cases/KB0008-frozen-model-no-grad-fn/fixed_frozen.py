"""The saved LoRA adapter reloaded with is_trainable=True, so its weights train again.

PeftModel.from_pretrained loads an adapter for inference unless is_trainable=True: every
parameter, the adapter's included, has requires_grad=False. A training loop without gradient
checkpointing then builds a loss that autograd cannot differentiate.
"""

import tempfile

import torch
from peft import PeftModel, get_peft_model
from transformers import AutoModelForCausalLM

from kb.fixtures.qwen import checkpoint, four_bit_config, lora_config, token_batch

path = checkpoint("small", layers=4)
adapter = tempfile.mkdtemp()
first = AutoModelForCausalLM.from_pretrained(path, quantization_config=four_bit_config(), device_map={"": 0})
get_peft_model(first, lora_config()).save_pretrained(adapter)  # an earlier run's adapter
del first

base = AutoModelForCausalLM.from_pretrained(path, quantization_config=four_bit_config(), device_map={"": 0})
model = PeftModel.from_pretrained(base, adapter, is_trainable=True)
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"kb-measure trainable_parameters={trainable}")

model.train()
# AdamW refuses an empty parameter list; a dummy tensor keeps the loop as users write it.
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad] or [torch.zeros(1)], lr=1e-4)
for step in range(3):
    loss = model(**token_batch(1, 256, device=0, seed=step)).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"step {step}: loss {loss.item():.4f}")
print(f"kb-measure steps_completed={step + 1}")
