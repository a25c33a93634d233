"""A fine-tuning recipe loads its model with attn_implementation="flash_attention_2" in an environment where
flash-attn is not installed (its wheel failed to build, or it was never installed)."""

import importlib.util

import torch
from transformers import AutoModelForCausalLM

from kb.fixtures import tiny

print("flash_attn installed:", importlib.util.find_spec("flash_attn") is not None)
tok = tiny.tokenizer()
path = tiny.saved(tiny.causal_lm(tok), tok)

model = AutoModelForCausalLM.from_pretrained(
    path,
    dtype=torch.bfloat16,
    attn_implementation="sdpa",  # PyTorch's fused attention: no extra package
)
enc = tok(tiny.texts(2), padding=True, return_tensors="pt")
loss = model(**enc, labels=enc["input_ids"]).loss
loss.backward()
print("attention:", model.config._attn_implementation, "loss", round(loss.item(), 3))
