"""The logits warpers do the same filtering."""
import torch
from transformers import TopKLogitsWarper, TopPLogitsWarper

scores = torch.randn(2, 32)
scores = TopPLogitsWarper(top_p=0.9)(None, TopKLogitsWarper(top_k=5)(None, scores))
print("kb-drift built", tuple(scores.shape))
