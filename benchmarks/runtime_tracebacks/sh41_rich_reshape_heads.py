# family: shape-mismatch
# set: runtime-41
# expect: shape|invalid for input of size|size
# note: rich traceback; a config edited to 3 attention heads for hidden size 16 (not divisible), forward of the attention
from rich.traceback import install

install(width=110)
import torch
import _tiny

model = _tiny.llama(num_attention_heads=3, num_key_value_heads=3, head_dim=6)
model(torch.tensor([[1, 5, 6, 7]]))
