"""A Llama-3.1 style config: rope_scaling of rope_type 'llama3' (as in Meta-Llama-3.1's config.json)."""
from transformers import LlamaConfig

rope_scaling = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192}
config = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, vocab_size=32,
                     max_position_embeddings=131072, rope_scaling=rope_scaling)
print("kb-drift built", config.rope_scaling)
