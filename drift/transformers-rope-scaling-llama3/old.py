"""A Llama config with the older two-field rope_scaling."""
from transformers import LlamaConfig

config = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, vocab_size=32,
                     rope_scaling={"type": "linear", "factor": 2.0})
print("kb-drift built", config.rope_scaling)
