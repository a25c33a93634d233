# family: api-drift
# set: runtime-44
# mode: pyc
# expect: cannot import name|ImportError|LlamaFlashAttention2
# note: python -c: an old notebook patches attention by importing LlamaFlashAttention2 from transformers' Llama module (the per-backend attention classes were folded into LlamaAttention)
import torch
from transformers.models.llama.modeling_llama import LlamaFlashAttention2
print(LlamaFlashAttention2)
