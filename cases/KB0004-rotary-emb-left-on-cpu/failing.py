"""Attempt 7 of the incident: a hand-written device_map that names every module except model.rotary_emb.

Qwen2 computes the rotary position embedding once per forward in ``model.rotary_emb``, a module
with no parameters, only the buffer ``inv_freq``. A device_map lists modules; one it leaves out is
not dispatched, so its buffer stays where the model was built: on the CPU. The architecture is
Qwen2's, in small dimensions and bf16 (placement, not memory or quantization, is the point here).
"""

import torch
from transformers import AutoModelForCausalLM

from kb.fixtures.qwen import checkpoint, token_batch

LAYERS = 8
path = checkpoint("small", layers=LAYERS)

# GPU 0: embed_tokens + layers 0-1 + norm + lm_head; GPU 1: layers 2-7 (the incident: 0-15 / 16-47).
device_map = {"model.embed_tokens": 0, "model.norm": 0, "lm_head": 0}
device_map.update({f"model.layers.{i}": 0 if i < 2 else 1 for i in range(LAYERS)})

model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.bfloat16, device_map=device_map)
inv_freq = model.model.rotary_emb.inv_freq
print("rotary_emb.inv_freq on", inv_freq.device)
print(f"kb-measure inv_freq_on_cpu={int(inv_freq.device.type == 'cpu')}")

batch = token_batch(1, 128, device=0)
loss = model(**batch).loss
loss.backward()
print(f"forward and backward ran, loss {loss.item():.4f}")
print("kb-measure forward_completed=1")
