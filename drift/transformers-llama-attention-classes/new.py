"""One attention class; the backend is the config's attn_implementation (transformers >= 4.48)."""
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaAttention

config = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=4, vocab_size=32, attn_implementation="sdpa")
layer = LlamaAttention(config, layer_idx=0)
print("kb-drift built", type(layer).__name__, config._attn_implementation)
