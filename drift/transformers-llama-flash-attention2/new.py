"""LlamaAttention, which transformers >= 4.48 runs with the kernel named by attn_implementation."""
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaAttention

config = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=4, vocab_size=32)
layer = LlamaAttention(config, layer_idx=0)
print("kb-drift built", type(layer).__name__)
