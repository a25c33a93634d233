"""Row-wise int8 quantization through the old LLM.int8() helper, as code for bitsandbytes <= 0.45 calls it."""
import bitsandbytes.functional as F
import torch

A = torch.randn(4, 8, dtype=torch.float16)
out_row, out_col, row_stats, col_stats, coo = F.double_quant(A)
print("kb-drift quantized", out_row.dtype)
