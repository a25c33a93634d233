"""The replacement: int8_vectorwise_quant (bitsandbytes >= 0.45; it has a CPU kernel from 0.46)."""
import bitsandbytes.functional as F
import torch

A = torch.randn(4, 8, dtype=torch.float16)
out_row, row_stats, outliers = F.int8_vectorwise_quant(A)
print("kb-drift quantized", out_row.dtype)
