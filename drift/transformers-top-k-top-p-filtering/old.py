"""Filtering sampled logits with the helper, as trl <= 0.7 and sampling scripts did."""
import torch
from transformers import top_k_top_p_filtering

logits = top_k_top_p_filtering(torch.randn(2, 32), top_k=5, top_p=0.9)
print("kb-drift built", tuple(logits.shape))
