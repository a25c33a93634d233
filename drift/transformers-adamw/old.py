"""Optimizer imported from transformers, as older fine-tuning scripts do."""
import torch
from transformers import AdamW

optimizer = AdamW(torch.nn.Linear(4, 4).parameters(), lr=1e-3)
print("kb-drift built", type(optimizer).__name__)
