"""Quantiles of a tensor through bitsandbytes' helper, as code for bitsandbytes <= 0.46 calls it."""
import bitsandbytes.functional as F
import torch

quantiles = F.estimate_quantiles(torch.randn(4096))
print("kb-drift quantiles", quantiles.shape)
